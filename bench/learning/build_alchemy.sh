#!/usr/bin/env bash
# Builds Alchemy 2.0's learnwts and infer BESIDE the project, for the side-by-side runs of
# bench/learning (-alchemy DIR). Nothing of Alchemy is committed to this repository.
#
#   bench/learning/build_alchemy.sh [DIR]     (default ../thirdparty/alchemy2)
#
# Source: the GitHub mirror PhDP/alchemy2 (commit fd6291a, a copy of Alchemy 2.0's SVN with a
# README and an example added). Needs g++, make, bison and flex (Debian: apt-get install g++ make
# bison flex). The source predates modern compilers; the patches below are the fewest that let
# g++ 12 and bison 3.8 build it, none changes what the programs compute:
#   - util/array.h, util/hasharray.h: Array::shuffle called the member Random::randomOneOf as if
#     static; old g++ never checked the uninstantiated template, g++ 12 does. It is never called
#     by learnwts or infer; it now draws with rand().
#   - parser/fol.y: the unused grammar rule `polynomial: 'x^2 + x + 3'` is a multi-character
#     literal, an error in bison 3 (bison 2 took its first character): now 'x'.
#   - compiled as C++98 with -fpermissive (old-style friend declarations and implicit
#     conversions), -O2 -DNDEBUG instead of the makefile's debug flags.
# Binaries: DIR/bin/learnwts, DIR/bin/infer.
set -euo pipefail
DIR=${1:-../thirdparty/alchemy2}
COMMIT=fd6291a
if [ ! -d "$DIR/src" ]; then
  git clone https://github.com/PhDP/alchemy2 "$DIR"
  git -C "$DIR" checkout -q "$COMMIT"
fi
cd "$DIR/src"
sed -i 's/int swapwith = Random::randomOneOf(numItems_);/int swapwith = (int) (numItems_ * (rand() \/ (RAND_MAX + 1.0)));/' util/array.h util/hasharray.h
sed -i "s/^  'x^2 + x + 3'\$/  'x'/" parser/fol.y
mkdir -p ../bin/obj
make -j"${JOBS:-2}" learnwts infer CLFLAGS="-O2 -DNDEBUG -std=gnu++98 -fpermissive"
ls -l ../bin/learnwts ../bin/infer
