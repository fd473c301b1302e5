#!/usr/bin/env bash
# Input of compile-cli.test: a "ptxas" that exits 0 but writes no cubin ($FAKE_PTXAS_OUTPUT
# bytes of text, or an empty file) to the -o path.
out=
while (($#)); do
  if [[ $1 == -o ]]; then out=$2; shift; fi
  shift
done
printf '%s' "${FAKE_PTXAS_OUTPUT-}" > "$out"
exit 0
