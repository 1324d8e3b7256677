# The two commands of the quick start: `make run` and `make test`. Each installs the Debian
# packages it needs (once; nothing is reinstalled when present), configures, builds and runs.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_FLAGS ?=

DEB_PACKAGES := cmake g++ make pkg-config libsimgrid-dev libopenmpi-dev openmpi-bin \
	libboost-program-options-dev catch2 nlohmann-json3-dev python3 time \
	python3-pandas python3-matplotlib iproute2 clang clang-format libclang-rt-dev python3-torch libtorch-dev python3-torchvision python3-numpy \
	pybind11-dev python3-dev python3-mpi4py libexpat1-dev protobuf-compiler libprotobuf-dev python3-protobuf

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps configure build run test fuzz clean

all: build

# Install only what is missing: dpkg-query is fast, apt-get runs only when needed.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job: ddlsim's default sweep on the 64-node S822LC cluster. Builds ddlsim and what it
# links only; `make build` and `make test` build the rest.
run: configure
	@if grep -q '^DDL_WITH_SIM:BOOL=\(ON\|TRUE\)' $(BUILD)/CMakeCache.txt && grep -q '^DDL_WITH_TOOLS:BOOL=\(ON\|TRUE\)' $(BUILD)/CMakeCache.txt; then \
	  cmake --build $(BUILD) -j $(JOBS) --target ddlsim && $(BUILD)/bin/ddlsim; \
	else echo "ddlsim is not built here: see the DDL_WITH_SIM and DDL_WITH_TOOLS lines of the configure output" >&2; exit 1; fi

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

# libFuzzer under ASan + UBSan (fuzz/README.md): each target FUZZ_SECONDS, from its seed corpus.
# A build of its own (clang, the fuzz targets and what they link only); MPI and CUDA are not used.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDDL_FUZZ=ON \
	  -DDDL_SANITIZE=address,undefined -DDDL_WITH_MPI=OFF -DDDL_WITH_CUDA=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target ddl_fuzzers
	fuzz/run.sh $(FUZZ_BUILD)/bin $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
