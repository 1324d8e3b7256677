// Host buffers for timed runs, in the pages asked for. `huge`: 2 MB-aligned and advised to the
// kernel as transparent huge pages (madvise MADV_HUGEPAGE), so it backs them with 2 MB pages
// where it can. Why it matters: the kernel's cross-memory attach (direct's get/put, Open MPI's
// own single-copy path) pins every page it copies, and on 4 KB pages that pinning costs about as
// much as the copy itself (experiments/results/bench_real_summary.txt); a program that allocates
// its gradients in huge pages gets the faster path.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ddl {

enum class Pages { base, huge };  // base: whatever the allocator gives (4 KB pages here)

// "4k" or "huge"; InvalidArgument naming the value otherwise.
Pages parse_pages(std::string_view text);
const char* to_string(Pages pages);

// Throws InvalidArgument when `pages` is huge and the kernel offers no transparent huge pages
// to madvise (/sys/kernel/mm/transparent_hugepage/enabled missing or "never").
void require_pages(Pages pages);

// Zeroed memory of `bytes` (at least 1) in `pages`, every page touched now so timed runs pay no
// page faults. Move-only; freed with the object.
class HostBuffer {
 public:
  HostBuffer(std::size_t bytes, Pages pages);
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&&) = delete;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  std::byte* data() const { return data_; }

 private:
  std::byte* data_ = nullptr;
};

}  // namespace ddl
