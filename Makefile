# tk - thin wrapper over CMake and the scripts. See README.md.
#   make            build for this CPU (detected) into build/native
#   make test       every test: host, sanitizers, NEON/SVE/RVV under qemu, make dist for every CPU
#   make bench      build for this CPU, verify, then GFLOP/s against OpenBLAS, libxsmm and Eigen
#   make dist ARCH=<cpu>   plain headers for one CPU in dist/<cpu>
#   make golden     refresh tests/golden after a reviewed template change
JOBS ?= 2
TK_CPU ?=
BUILD ?= build

.PHONY: all deps test bench dist golden clean
all:
	@scripts/deps.sh build
	cmake -S . -B $(BUILD)/native -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_BENCH=OFF -DTK_CPU=$(TK_CPU)
	cmake --build $(BUILD)/native -j$(JOBS)

test:
	@TK_JOBS=$(JOBS) TK_TEST_BUILD=$(CURDIR)/$(BUILD)/test scripts/test-all.sh

bench:
	@scripts/deps.sh bench
	cmake -S . -B $(BUILD)/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_TESTS=OFF -DTK_CPU=$(TK_CPU)
	cmake --build $(BUILD)/bench -j$(JOBS) --target tk_bench
	bench/run.sh $(BUILD)/bench $(BENCH_ARGS)

dist:
	@test -n "$(ARCH)" || { echo "usage: make dist ARCH=<cpu>  (CPUs: tuning_tables/registry.tkr)"; exit 2; }
	scripts/dist.sh $(ARCH)

golden:
	cmake -S . -B $(BUILD)/native -G Ninja -DTK_BUILD_BENCH=OFF
	cmake --build $(BUILD)/native --target golden-update

clean:
	rm -rf $(BUILD) dist
