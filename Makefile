# Conveniences over the scripts; the README's two commands are the set-up.
FUZZTIME ?= 5m

.PHONY: test fuzz
test:
	scripts/test

# Runs every fuzz test for FUZZTIME each: make fuzz FUZZTIME=30m
fuzz:
	scripts/fuzz $(FUZZTIME)
