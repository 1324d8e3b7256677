#include "real/mpi/host_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include "algorithms/error.hpp"

namespace ddl {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr char kThpMode[] = "/sys/kernel/mm/transparent_hugepage/enabled";

}  // namespace

Pages parse_pages(std::string_view text) {
  if (text == "4k") return Pages::base;
  if (text == "huge") return Pages::huge;
  throw InvalidArgument("unknown --pages '" + std::string(text) + "' (4k or huge)");
}

const char* to_string(Pages pages) {
  return pages == Pages::huge ? "huge" : "4k";
}

void require_pages(Pages pages) {
  if (pages != Pages::huge) return;
  std::ifstream in(kThpMode);
  std::string mode;
  std::getline(in, mode);
  // The selected mode is the bracketed one: "always [madvise] never".
  if (!in || mode.empty() || mode.find("[never]") != std::string::npos)
    throw InvalidArgument(
        std::string("--pages huge: the kernel offers no transparent huge pages (") + kThpMode +
        ": " + (mode.empty() ? "missing" : mode) + ")");
}

HostBuffer::HostBuffer(std::size_t bytes, Pages pages) {
  bytes = bytes == 0 ? 1 : bytes;
  if (pages == Pages::huge) {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    data_ = static_cast<std::byte*>(std::aligned_alloc(kHugePage, rounded));
    if (data_ == nullptr) throw std::bad_alloc();
    // Advice only: where the kernel cannot, the range keeps base pages and still works.
    madvise(data_, rounded, MADV_HUGEPAGE);
  } else {
    data_ = static_cast<std::byte*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    if (data_ == nullptr) throw std::bad_alloc();
  }
  std::memset(data_, 0, bytes);  // touch every page now, outside any timed region
}

HostBuffer::~HostBuffer() {
  std::free(data_);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept : data_(other.data_) {
  other.data_ = nullptr;
}

}  // namespace ddl
