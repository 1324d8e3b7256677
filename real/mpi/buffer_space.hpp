// Where ddlrun's collective buffers live (host memory or GPU memory), and how test patterns
// get in and results get out. The communicator reduces and moves data in that space; the
// sweep fills and checks patterns on the host and copies them across.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "algorithms/view.hpp"
#include "real/mpi/host_pages.hpp"

namespace ddl {

class BufferSpace {
 public:
  virtual ~BufferSpace() = default;
  virtual const char* name() const = 0;
  // Memory that lives as long as the space, touched once so timed runs pay no page faults.
  virtual MutView allocate(std::size_t bytes) = 0;
  virtual void upload(MutView dst, const void* host) = 0;  // dst.bytes from host
  virtual void download(void* host, ConstView src) = 0;    // src.bytes to host
  // True when MPI itself may read and write these buffers (the MPI_Allreduce baseline).
  virtual bool mpi_accessible() const = 0;
};

class HostSpace : public BufferSpace {
 public:
  explicit HostSpace(Pages pages = Pages::base) : pages_(pages) {}
  const char* name() const override { return "host"; }
  MutView allocate(std::size_t bytes) override;
  void upload(MutView dst, const void* host) override;
  void download(void* host, ConstView src) override;
  bool mpi_accessible() const override { return true; }

 private:
  Pages pages_;
  std::vector<HostBuffer> buffers_;
};

}  // namespace ddl
