# tk - thin wrapper over CMake and the scripts. See README.md.
#   make            build for this CPU (detected) into build/native
#   make test       every test: host, sanitizers, NEON/SVE/RVV under qemu, make dist for every CPU
#   make bench      build for this CPU, verify, then GFLOP/s against OpenBLAS, libxsmm and Eigen
#   make dist ARCH=<cpu>   plain headers for one CPU in dist/<cpu>
#   make retune ARCH=<cpu>  measure this machine and rewrite tuning_tables/<family>/<cpu>.tkt (and its
#                   record log); SHAPES=FILE adds exact-shape rows, BUDGET=seconds caps the measuring,
#                   ROWS=LO..HI measures only the cells of those row counts (the rest keep their rows),
#                   COLS=LO..HI only those of these column counts (both: the cells in both)
#   make golden     refresh tests/golden after a reviewed template change
JOBS ?= 2
TK_CPU ?=
BUILD ?= build

.PHONY: all deps test bench bench-dispatch dist retune golden clean
all:
	@scripts/deps.sh build
	cmake -S . -B $(BUILD)/native -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_BENCH=OFF -DTK_CPU=$(TK_CPU)
	cmake --build $(BUILD)/native -j$(JOBS)

test:
	@TK_JOBS=$(JOBS) TK_TEST_BUILD=$(CURDIR)/$(BUILD)/test scripts/test-all.sh

# PREV=<git revision>: also bench tk built from that revision's table for the CPU (column tk-prev).
bench:
	@scripts/deps.sh bench
	cmake -S . -B $(BUILD)/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_TESTS=OFF -DTK_CPU=$(TK_CPU) -DTK_BENCH_PREV_TABLE=
	@if [ -n "$(PREV)" ]; then \
	  cpu=$$(sed -n 's/^TK_CPU:STRING=//p' $(BUILD)/bench/CMakeCache.txt); \
	  [ -n "$$cpu" ] || cpu=$$($(BUILD)/bench/tkgen-host/tkgen detect --root .); \
	  table=$$($(BUILD)/bench/tkgen-host/tkgen info --root . --cpu $$cpu table | sed 's|^\./||'); \
	  git show "$(PREV):$$table" > $(BUILD)/bench/prev.tkt || exit 1; \
	  echo "make bench: tk-prev is tk built from $(PREV):$$table"; \
	  cmake -S . -B $(BUILD)/bench -DTK_BENCH_PREV_TABLE=$(CURDIR)/$(BUILD)/bench/prev.tkt > /dev/null; fi
	cmake --build $(BUILD)/bench -j$(JOBS) --target tk_bench
	bench/run.sh $(BUILD)/bench $(BENCH_ARGS)

# tk_gemm_f32 with run-time shapes against the chosen row called directly (and with literal shapes), 4^3..16^3
bench-dispatch:
	@scripts/deps.sh bench
	cmake -S . -B $(BUILD)/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_TESTS=OFF -DTK_CPU=$(TK_CPU)
	cmake --build $(BUILD)/bench -j$(JOBS) --target tk_dispatch
	$(BUILD)/bench/bench/tk_dispatch

dist:
	@test -n "$(ARCH)" || { echo "usage: make dist ARCH=<cpu>  (CPUs: tuning_tables/registry.tkr)"; exit 2; }
	scripts/dist.sh $(ARCH)

# Measured on this machine when it runs the CPU's ISA; otherwise estimated (llvm-mca, qemu checks),
# or measured on the board when TK_RUN='<command prefix that runs a binary there>' is set. A table's
# `.shapes` file beside it (the shapes its users run) gets exact-shape rows unless SHAPES= names
# another list.
retune:
	@test -n "$(ARCH)" || { echo "usage: make retune ARCH=<cpu> [SHAPES=file] [BUDGET=seconds] [ROWS=LO..HI] [COLS=LO..HI] [ONLY=shapes]  (CPUs: tuning_tables/registry.tkr)"; exit 2; }
	@case "$(ONLY)" in ""|shapes) ;; *) echo "make retune: ONLY=$(ONLY): the one value is ONLY=shapes (measure the listed shapes only)"; exit 2;; esac
	@scripts/deps.sh test
	cmake -S . -B $(BUILD)/tools -G Ninja -DCMAKE_BUILD_TYPE=Release -DTK_BUILD_BENCH=OFF > /dev/null
	cmake --build $(BUILD)/tools -j$(JOBS) --target tktune
	@table=$$($(BUILD)/tools/tkgen-host/tkgen info --root . --cpu $(ARCH) table) || exit 1; \
	shapes="$(SHAPES)"; [ -n "$$shapes" ] || { [ -f "$${table%.tkt}.shapes" ] && shapes="$${table%.tkt}.shapes"; }; \
	set -x; $(BUILD)/tools/tests/tktune retune --root . --cpu $(ARCH) --tkgen $(BUILD)/tools/tkgen-host/tkgen \
	  --work $(BUILD)/retune/$(ARCH) $${shapes:+--shapes "$$shapes"} $(if $(BUDGET),--budget-s $(BUDGET)) $(if $(ROWS),--rows $(ROWS)) $(if $(COLS),--cols $(COLS)) $(if $(filter shapes,$(ONLY)),--shapes-only)

golden:
	cmake -S . -B $(BUILD)/native -G Ninja -DTK_BUILD_BENCH=OFF
	cmake --build $(BUILD)/native --target golden-update

clean:
	rm -rf $(BUILD) dist
