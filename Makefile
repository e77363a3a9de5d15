# tk - thin wrapper over CMake and the scripts. See README.md.
#   make            build for this CPU (detected) into build/native
#   make test       every test: host, sanitizers, NEON/SVE/RVV under qemu, make dist for every CPU
#   make bench      build for this CPU, verify, then GFLOP/s against OpenBLAS, libxsmm and Eigen
#   make dist ARCH=<cpu>   plain headers for one CPU in dist/<cpu>
#   make retune ARCH=<cpu>  measure this machine and rewrite tuning_tables/<family>/<cpu>.tkt (and its
#                   record log); SHAPES=FILE adds exact-shape rows, BUDGET=seconds caps the measuring
#   make golden     refresh tests/golden after a reviewed template change
JOBS ?= 2
TK_CPU ?=
BUILD ?= build

.PHONY: all deps test bench dist retune golden clean
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

# The tuner runs here, on the machine whose table it rewrites; a table's `.shapes` file beside it
# (the shapes its users run) gets exact-shape rows unless SHAPES= names another list.
retune:
	@test -n "$(ARCH)" || { echo "usage: make retune ARCH=<cpu> [SHAPES=file] [BUDGET=seconds]  (CPUs: tuning_tables/registry.tkr)"; exit 2; }
	@scripts/deps.sh build
	cmake -S . -B $(BUILD)/tools -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_BENCH=OFF > /dev/null
	cmake --build $(BUILD)/tools -j$(JOBS) --target tktune
	@table=$$($(BUILD)/tools/tkgen-host/tkgen info --root . --cpu $(ARCH) table) || exit 1; \
	shapes="$(SHAPES)"; [ -n "$$shapes" ] || { [ -f "$${table%.tkt}.shapes" ] && shapes="$${table%.tkt}.shapes"; }; \
	set -x; $(BUILD)/tools/tests/tktune retune --root . --cpu $(ARCH) --tkgen $(BUILD)/tools/tkgen-host/tkgen \
	  --work $(BUILD)/retune/$(ARCH) $${shapes:+--shapes "$$shapes"} $(if $(BUDGET),--budget-s $(BUDGET))

golden:
	cmake -S . -B $(BUILD)/native -G Ninja -DTK_BUILD_BENCH=OFF
	cmake --build $(BUILD)/native --target golden-update

clean:
	rm -rf $(BUILD) dist
