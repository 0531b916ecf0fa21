# snapkit: the two commands of the README, and their parts.
#   make run    install what is missing, build, run the main job on the shipped example
#   make test   install what is missing (test peers too), build, run every test
# On a machine without make or a compiler, ./make.sh run and ./make.sh test
# install those first.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 20
EXAMPLE    := tests/data/ramses/gravpart/output_00002
SNAPKIT    := $(BUILD)/snapkit

.PHONY: run test deps deps-test build test-main test-asan fuzz clean install

run: deps build
	$(SNAPKIT) info $(EXAMPLE)
	$(SNAPKIT) stats $(EXAMPLE) --component hydro
	@mkdir -p $(BUILD)/maps
	$(SNAPKIT) project $(EXAMPLE) --vars sd,T --unit Msun/pc2 --unit K -o '$(BUILD)/maps/gravpart_{var}.png'
	@echo "maps: surface density $(CURDIR)/$(BUILD)/maps/gravpart_sd.png, temperature $(CURDIR)/$(BUILD)/maps/gravpart_T.png (figures with axes and colour bar; the colour ranges also in the .png.json beside each)"

# Every test, then what each passed, failed and skipped (scripts/test-summary.py;
# its last line counts them all). ctest's JUnit file says which tests skipped.
test: deps-test build
	$(MAKE) test-main
	$(MAKE) test-asan
	$(MAKE) fuzz
	@/usr/bin/python3 scripts/test-summary.py $(BUILD) $(BUILD_ASAN)

test-main:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) --output-junit ctest.xml \
	  || { /usr/bin/python3 scripts/test-summary.py $(BUILD); exit 1; }

deps:
	@scripts/install-deps.sh

deps-test:
	@scripts/install-deps.sh --test

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# C tests under AddressSanitizer and UndefinedBehaviorSanitizer. Without
# MPI: Open MPI's own allocations, kept until exit, read as leaks to ASan
# (the MPI code paths are tested by the main build's cli.test_mpi).
test-asan:
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DSNAPKIT_SANITIZE=ON -DSNAPKIT_MPI=OFF > /dev/null
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) -L "c|cli" --output-junit ctest.xml \
	  || { /usr/bin/python3 scripts/test-summary.py $(BUILD_ASAN); exit 1; }

# Every libFuzzer target for FUZZ_SECONDS, seeded from tests/data.
fuzz:
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=Debug -DSNAPKIT_FUZZ=ON -DSNAPKIT_MPI=OFF > /dev/null
	cmake --build $(BUILD_FUZZ) -j $(JOBS)
	@scripts/run-fuzzers.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
