#!/usr/bin/env bash
# run-matrix.sh — reads the run matrix (run-matrix.txt beside this script, or $RUN_MATRIX):
# the variant lists and the cases with their seeds that every run suite takes.
#   run-matrix.sh variants SET [PREFIX]    the variants of SET, space-separated (each
#                                          prefixed with PREFIX, e.g. a kernel name stem)
#   run-matrix.sh attr SET                 the same as an MLIR array: "ab_n64", "ab_n128"
#   run-matrix.sh family SET TARGET FILE   FILE (an op with target = "sm_100a") with
#                                          target = "TARGET", variants = [SET's variants]
#   run-matrix.sh runs SET [PART]          one line per run of SET (of PART only):
#                                          PART|NAME|ARGUMENTS
#   run-matrix.sh sets                     the names of the variant lists, one per line
# Sourced, it defines the functions matrix_variants, matrix_attr, matrix_family,
# matrix_runs and matrix_sets with the same arguments. An unknown SET is an error (exit 2), never an empty
# list.
MATRIX_FILE=${RUN_MATRIX:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/run-matrix.txt}

matrix_variants() { # SET [PREFIX]
  local kind set rest line out=""
  [[ -r $MATRIX_FILE ]] || { echo "run-matrix: cannot read $MATRIX_FILE" >&2; return 2; }
  while read -r kind set rest; do
    [[ $kind == variants && $set == "$1" ]] || continue
    for line in $rest; do out+="${out:+ }${2:-}$line"; done
    echo "$out"
    return 0
  done < "$MATRIX_FILE"
  echo "run-matrix: no variant list '$1' in $MATRIX_FILE" >&2
  return 2
}

matrix_attr() { # SET
  local list v out=""
  list=$(matrix_variants "$1") || return 2
  for v in $list; do out+="${out:+, }\"$v\""; done
  echo "$out"
}

matrix_family() { # SET TARGET FILE
  local attr
  attr=$(matrix_attr "$1") || return 2
  grep -q 'target = "sm_100a"' "$3" || { echo "run-matrix: $3 has no target = \"sm_100a\"" >&2; return 2; }
  sed "s/target = \"sm_100a\"/target = \"$2\", variants = [$attr]/" "$3"
}

matrix_runs() { # SET [PART]
  local kind set part rest name args found=0
  [[ -r $MATRIX_FILE ]] || { echo "run-matrix: cannot read $MATRIX_FILE" >&2; return 2; }
  while read -r kind set part rest; do
    [[ $kind == run && $set == "$1" ]] || continue
    found=1
    [[ -z ${2:-} || $part == "$2" ]] || continue
    name=${rest%%|*} args=${rest#*|}
    name=${name%"${name##*[![:space:]]}"} args=${args#"${args%%[![:space:]]*}"}
    echo "$part|$name|$args"
  done < "$MATRIX_FILE"
  [[ $found == 1 ]] || { echo "run-matrix: no runs of '$1' in $MATRIX_FILE" >&2; return 2; }
}

matrix_sets() {
  local kind set rest
  [[ -r $MATRIX_FILE ]] || { echo "run-matrix: cannot read $MATRIX_FILE" >&2; return 2; }
  while read -r kind set rest; do [[ $kind == variants ]] && echo "$set"; done < "$MATRIX_FILE"
  return 0
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  cmd=${1:-}
  shift || true
  case $cmd in
    variants|attr|family|runs|sets) "matrix_$cmd" "$@" ;;
    *) echo "usage: run-matrix.sh variants|attr|family|runs|sets ..." >&2; exit 2 ;;
  esac
fi
