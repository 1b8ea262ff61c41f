# The CLI invocations compare.sh runs, sourced by it. Each line
#
#   c NAME ARG...
#
# is one case: "lifted ARG..." run in a scratch copy of the repository root
# (symlinks to examples/, experiments/, cmd/ and ../shared), so the paths
# below are relative to the repository root, as in README.md. "@O" in an
# argument is the case's own output directory (o/NAME, relative; its files
# are compared too). Cases run in this order, so a case may read what an
# earlier one wrote (learn then loglik).
#
# Every case finished in a few seconds with the base binary (3ee562b) on the
# 2-core development machine; those that did not are left out with a comment.
# Keep names unique and free of spaces and slashes.

X=examples
T=cmd/lifted/testdata
W=cmd/lifted/testdata/wfomc

# ---- help (the usage texts are output too) ----
c help-root --help
for s in infer compress count wfomc learn loglik; do
	c help-$s $s --help
done

# ---- shipped examples: factor graphs ----
for m in smokers10 grid20; do
	f=$X/fg/$m.uai
	ev=()
	[ -f "$f.evid" ] && ev=(-e "$f.evid")
	c ex-$m-lbp-flood infer "$f" "${ev[@]}"
	c ex-$m-lbp-seq infer --schedule seq "$f" "${ev[@]}"
	c ex-$m-bp-flood infer --method bp "$f" "${ev[@]}"
	c ex-$m-bp-seq-damp infer --method bp --schedule seq --damping 0.3 "$f" "${ev[@]}"
	c ex-$m-json infer --output-format json "$f" "${ev[@]}"
	c ex-$m-bp-json infer --method bp --output-format json "$f" "${ev[@]}"
	c ex-$m-mpe infer --max-product "$f" "${ev[@]}"
	c ex-$m-mpe-json infer --max-product --output-format json "$f" "${ev[@]}"
	c ex-$m-symmetric infer --color-mode symmetric --output-format json "$f" "${ev[@]}"
	c ex-$m-out infer "$f" "${ev[@]}" -o @O/model.MAR
	c ex-$m-compress compress "$f" "${ev[@]}"
	c ex-$m-compress-noev compress "$f"
	c ex-$m-compress-out compress "$f" "${ev[@]}" -o @O/stats.json
done
c ex-smokers10-maxiter infer --max-iter 3 $X/fg/smokers10.uai

# ---- command testdata (small models and CNFs of the tests) ----
c td-twofactors-seq infer --schedule seq $T/twofactors.fg
c td-twofactors-json infer --output-format json $T/twofactors.fg
c td-tiny-cnf infer $T/tiny.cnf
c td-tiny-cnf-json infer --output-format json $T/tiny.cnf -o @O/tiny.json
c td-tiny-cnf-compress compress $T/tiny.cnf
c td-tiny-cnf-positional compress --color-mode positional $T/tiny.cnf
c td-copies-exact count --method exact $T/count/copies.cnf
c td-copies-exact-json count --method exact --output-format json $T/count/copies.cnf
c td-unsat-exact count --method exact $T/count/unsat.cnf
c td-unsat-lbpcount count $T/count/unsat.cnf
c td-copies-lbpcount count --residual-vars 4 --trials 3 --alpha 2 $T/count/copies.cnf
c td-copies-bpcount count --method bpcount --residual-vars 4 --trials 3 --seed 7 $T/count/copies.cnf
c td-copies-perstep count --residual-vars 4 --trials 2 --per-step $T/count/copies.cnf
c td-copies-perstep-json count --residual-vars 4 --trials 2 --per-step --output-format json $T/count/copies.cnf
c td-copies-evidence-graph count --bp-graph evidence --residual-vars 4 --trials 2 --output-format json $T/count/copies.cnf -o @O/bound.json
c td-copies-workers1 count --workers 1 --residual-vars 4 --trials 3 $T/count/copies.cnf

# ---- shipped examples: Markov logic ----
S=$X/mln/smokers.mln
SD=$X/mln/smokers.db
c ex-mln-smokers infer $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-mpe infer $S -e $SD -q Cancer --max-product
c ex-mln-smokers-mpe-json infer --max-product --output-format json $S -e $SD -q Cancer
c ex-mln-smokers-friends-json infer $S -e $SD -q 'Friends(Anna,y)' --ow Friends --output-format json
c ex-mln-smokers-groundbp infer --method bp $S -q Smokes
c ex-mln-smokers-bp-json infer --method bp --output-format json $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-seq infer --schedule seq $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-r infer $S -e $SD -q 'Cancer(Anna)' -q 'Friends(Anna,y)' --ow Friends -r @O/result.txt
c ex-mln-smokers-alchemy-cnf infer --alchemy-cnf $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-merge infer --merge-duplicates --output-format json $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-compress compress $S -e $SD -q Smokes,Cancer
c ex-mln-smokers-compress-noq compress $S -e $SD
c ex-mln-smokers-wfomc wfomc $S
c ex-mln-smokers-wfomc-domain wfomc $S --domain person=1000
c ex-mln-smokers-wfomc-json wfomc $S -q 'Cancer(Anna)' -q 'Friends(Anna,Bob)' --output-format json
c ex-mln-smokers-learn-lwl learn --method lwl -i $S -t $SD
c ex-mln-smokers-learn-pll learn --method pll -i $S -t $SD -o @O/pll.mln
c ex-mln-smokers-loglik loglik $S $SD
c ex-mln-smokers-loglik-json loglik --output-format json $S $SD
for p in factor tree neighbourhood; do
	for m in smd sgd; do
		c ex-mln-smokers-$m-$p learn --method $m --pieces $p --passes 2 --batch-size 4 --ne Smokes,Cancer \
			-i $S -t $SD --holdout $SD --log @O/curve.json -o @O/learned.mln
	done
done
c ex-mln-smokers-smd-plot learn --method smd --pieces tree --passes 1 --batch-size 4 --ne Smokes,Cancer \
	-i $S -t $SD --holdout $SD --log @O/curve.json --plot @O/curve.svg
c ex-mln-smokers-sgd-plot learn --method sgd --passes 1 --batch-size 4 --ne Smokes,Cancer \
	-i $S -t $SD --holdout $SD --plot @O/curve.png
c ex-mln-smokers-scg learn --method scg --max-iter 5 --ne Smokes,Cancer -i $S -t $SD --holdout $SD --log @O/curve.json
c ex-mln-smokers-lbfgs-bp learn --method lbfgs-bp --max-iter 5 --ne Smokes,Cancer -i $S -t $SD --holdout $SD --log @O/curve.json
c ex-mln-smokers-smd-groundbp learn --method smd --ground-bp --passes 1 --batch-size 4 --ne Smokes,Cancer -i $S -t $SD
c ex-mln-univ infer $X/mln/datasets/univ.mln -q advisedBy
c ex-mln-univ-compress compress $X/mln/datasets/univ.mln -q advisedBy

# ---- the command's wfomc testdata (cmd/lifted/wfomc_test.go) ----
c td-wfomc-friendsmoker-json wfomc $W/friendsmoker.mln --query 'friends(Guy,Nima)' -q 'smokes(Guy)' --output-format json
c td-wfomc-friendsmoker-1e6 wfomc $W/friendsmoker.mln --domain person=1000000
c td-wfomc-friendsmoker-ev wfomc $W/friendsmoker.mln -e $W/evidence.db -q 'smokes(Guy)' --output-format json
c td-wfomc-transitive-ground wfomc $W/transitive.mln --allow-ground --output-format json
c td-wfomc-friendsmoker-out wfomc $W/friendsmoker.mln --domain person=10 -o @O/wfomc.txt
c td-learn-lwl learn --method lwl -i $W/smoking.mln -t $W/train.db -o @O/learned.mln
c td-loglik-learned loglik o/td-learn-lwl/learned.mln $W/train.db $W/test.db --output-format json
c td-loglik-learned-text loglik o/td-learn-lwl/learned.mln $W/train.db $W/test.db
c td-wfomc-learned wfomc o/td-learn-lwl/learned.mln --domain person=8 --output-format json
c td-learn-pll learn --method pll -i $W/smoking.mln -t $W/train.db,$W/test.db
c td-learn-pll-unweighted learn --method pll --pll-unweighted -i $W/smoking.mln -t $W/train.db -t $W/test.db
c td-learn-lwl-prior learn --method lwl --prior-stddev 1 --prior-mean 0.5 -i $W/smoking.mln -t $W/train.db

# ---- error cases: exit status and stderr ----
c err-no-args infer
c err-bad-flag infer --bogus $X/fg/smokers10.uai
c err-bad-schedule infer --schedule zigzag $X/fg/smokers10.uai
c err-bad-damping infer --damping 1.5 $X/fg/smokers10.uai
c err-bad-method infer --method magic $X/fg/smokers10.uai
c err-bad-ext infer model.xyz
c err-no-file infer no-such-file.uai
c err-no-evid infer $X/fg/smokers10.uai -e no-such.evid
c err-truncated infer $T/truncated.uai
c err-bad-colour compress --color-mode wild $X/fg/smokers10.uai
c err-bad-outformat infer --output-format xml $X/fg/smokers10.uai
c err-unknown-cmd frobnicate
c err-mln-noquery infer $S
c err-mln-badpred infer $S -q Smoke
c err-mln-badconst infer $S -q 'Smokes(Zed)'
c err-mln-unweighted infer $T/mln/unweighted.mln -q Smokes
c err-mln-contradiction infer $T/mln/hard.mln -e $T/mln/contradiction.db -q Knows
c err-mln-mutex infer $T/mln/mutex.mln -e $T/mln/mutex.db -q Likes
c err-mln-maxground infer $S -q Smokes --max-ground 10
c err-mln-syntax infer $T/mln/syntax.mln -q Smokes
c err-mln-badweight infer $T/mln/badweight.mln -q Smokes
c err-mln-unknownpred-db infer $T/mln/hard.mln -e $T/mln/unknownpred.db -q Knows
c err-mln-cw-query infer $S -q Smokes --cw Smokes
c err-mln-nodb infer $S -q Smokes -e no-such.db
c err-count-bad-cnf count $T/count/bad.cnf
c err-count-fg count $T/twofactors.fg
c err-count-bad-method count --method magic $T/count/copies.cnf
c err-count-bad-minprob count --min-prob 0 $T/count/copies.cnf
c err-count-uai-weighted count --method exact $X/fg/smokers10.uai
c err-wfomc-transitive wfomc $W/transitive.mln --output-format json
# more than 20 named ground atoms in one part:
c err-wfomc-named-evidence wfomc $S -e $SD -q 'Cancer(Anna)'
c err-wfomc-domain wfomc $W/friendsmoker.mln --domain nosuchtype=3
c err-learn-noinput learn --method lwl -t $W/train.db
c err-learn-method learn --method magic -i $W/smoking.mln -t $W/train.db
c err-learn-online-ne learn --method smd -i $S -t $SD
c err-loglik-noweight loglik $W/smoking.mln $W/test.db
c err-loglik-args loglik $W/smoking.mln

# ---- ../shared/data ----
if [ -z "$HAVE_SHARED" ]; then
	echo "compare.sh: ../shared/data not found: skipping the shared-data cases" >&2
	return 0
fi
D=../shared/data

# UAI models (all of them run in well under a second per case).
for f in $D/uai/*.uai; do
	n=$(basename "$f" .uai)
	ev=()
	[ -f "$f.evid" ] && ev=(-e "$f.evid")
	c uai-$n-lbp-flood infer "$f" "${ev[@]}"
	c uai-$n-lbp-seq infer --schedule seq "$f" "${ev[@]}"
	c uai-$n-bp-flood infer --method bp "$f" "${ev[@]}"
	c uai-$n-bp-seq infer --method bp --schedule seq "$f" "${ev[@]}"
	c uai-$n-json infer --output-format json "$f" "${ev[@]}"
	c uai-$n-bp-seq-json infer --method bp --schedule seq --output-format json "$f" "${ev[@]}"
	c uai-$n-mpe infer --max-product "$f" "${ev[@]}"
	c uai-$n-mpe-json infer --max-product --output-format json "$f" "${ev[@]}"
	c uai-$n-compress compress "$f" "${ev[@]}"
done
# The 0/1 UAI models of CNFs count like their CNFs.
c uai-2bitmax_6-count-exact count --method exact --output-format json $D/uai/2bitmax_6.cnf.uai
c uai-2bitcomp_5-count-exact count --method exact $D/uai/2bitcomp_5.cnf.uai
# Sequential BP on them hits all-zero messages (an error case above); damped:
for n in 2bitcomp_5 2bitmax_6; do
	c uai-$n-seq-damp infer --schedule seq --damping 0.5 --output-format json $D/uai/$n.cnf.uai -e $D/uai/$n.cnf.uai.evid
	c uai-$n-bp-seq-damp infer --method bp --schedule seq --damping 0.5 $D/uai/$n.cnf.uai -e $D/uai/$n.cnf.uai.evid
done
c uai-2bitcomp_5-compress-symmetric compress --color-mode symmetric $D/uai/2bitcomp_5.cnf.uai

# libDAI factor graphs.
for f in $D/fg/*.fg; do
	n=$(basename "$f" .fg)
	c fg-$n-lbp-flood infer "$f"
	c fg-$n-bp-seq infer --method bp --schedule seq "$f"
	c fg-$n-json infer --output-format json "$f"
	c fg-$n-mpe infer --max-product "$f"
	c fg-$n-compress compress "$f"
done
c fg-horus_cbp_example-uai infer $D/fg/horus_cbp_example.uai --output-format json

# CNF: exact counts (left out: 2bitadd_10 4 s, logistics.b 3.5 s, ais10 1.5 s;
# 2bitadd_11, 2bitadd_12, ais12, lang12, wff.3.100.150 over 20 s).
for n in 2bitcomp_5 2bitmax_6 3blocks ais6 ais8 bw_large.a logistics.a uf20-01 uf50-01 generated/ls5-norm-gen generated/ls6-norm-gen; do
	c cnf-$(basename $n)-exact count --method exact $D/cnf/$n.cnf
done
c cnf-2bitmax_6-exact-json count --method exact --output-format json $D/cnf/2bitmax_6.cnf
# CNF: BPCount and LBPCount, seeded, 2 trials (left out: 2bitmax_6 BPCount,
# ais8, 3blocks, bw_large.a, logistics.*: over 20 s; ais6 BPCount 6.6 s).
for n in uf20-01 uf50-01 wff.3.100.150 2bitcomp_5 generated/ls5-norm-gen; do
	b=$(basename $n)
	c cnf-$b-bpcount count --method bpcount --trials 2 --seed 3 $D/cnf/$n.cnf
	c cnf-$b-lbpcount count --trials 2 --seed 3 --output-format json $D/cnf/$n.cnf
done
c cnf-ais6-lbpcount count --trials 2 --seed 3 $D/cnf/ais6.cnf
c cnf-wff-perstep count --trials 2 --seed 5 --per-step $D/cnf/wff.3.100.150.cnf
c cnf-uf20-01-infer infer $D/cnf/uf20-01.cnf
c cnf-2bitmax_6-compress compress $D/cnf/2bitmax_6.cnf

# Markov logic networks (README "datasets" commands; the large groundings
# with --max-iter 5 as cmd/lifted/mln_data_test.go runs them).
M=$D/mln
c mln-uwcse-tuffy infer --max-iter 5 --output-format json $M/uwcse/tuffy-cse/prog.mln -e $M/uwcse/tuffy-cse/evidence.db -q advisedBy
# cora-class as in README (no --max-iter) runs past 60 s; 5 iterations:
c mln-cora-tuffy infer --max-iter 5 --output-format json $M/cora-class/tuffy-class/prog.mln -e $M/cora-class/tuffy-class/evidence.db -q category
c mln-rc1000-contradiction infer $M/rc1000/tuffy-rc1000/prog.mln -e $M/rc1000/tuffy-rc1000/evidence.db -q category
c mln-webkb-alchemy infer $M/webkb/alchemy2/webkb.mln -q PageClass
c mln-imdb-forclift infer $M/imdb/forclift/formulas.mln -e $M/imdb/forclift/imdb.1.db -q workedUnder --default-weight 1
c mln-webkb-forclift infer $M/webkb/forclift/webkb.mln -e $M/webkb/forclift/corn.db -q PageClassCourse --default-weight 1
c mln-webkb-forclift-json infer --max-iter 5 --output-format json $M/webkb/forclift/webkb.mln -e $M/webkb/forclift/corn.db -q PageClassCourse,PageClassFaculty --default-weight 1
c mln-protein infer --max-iter 5 --output-format json $X/mln/datasets/protein.mln -e $M/protein/lsm-train/yeast.1.db -q function
c mln-imdb-lsm infer $X/mln/datasets/imdb.mln -e $M/imdb/lsm/imdb1.db -q workedUnder
c mln-smokers-tuffy infer $M/smokers/tuffy-smoke/prog.mln -e $M/smokers/tuffy-smoke/evidence.db -q Cancer
c mln-smokers-lomrf infer $M/smokers/lomrf/smoking.mln -e $M/smokers/lomrf/smoking-test.db -q Cancer --default-weight 1
c mln-smokers-alchemy infer --output-format json $M/smokers/alchemy2/model.mln -e $M/smokers/alchemy2/evidence.db -q Cancer,Smokes
c mln-uwcse-compress compress --merge-duplicates $M/uwcse/tuffy-cse/prog.mln -e $M/uwcse/tuffy-cse/evidence.db -q advisedBy
C=$M/caviar-meet/lomrf-DN-HI/fold_0
c mln-caviar-fold0 infer $C/meet_trained_func.mln -e $C/21-Meet_WalkSplit.id1_id3.db -q HoldsAt --schedule seq \
	--cw Happens,StartTime,Next,OrientationMove,Close
c mln-caviar-fold0-mpe infer --max-product --output-format json $C/meet_trained_func.mln -e $C/23-Meet_Crowd.id1_id3.db -q HoldsAt \
	--schedule seq --cw Happens,StartTime,Next,OrientationMove,Close
c mln-caviar-fold0-merge compress --merge-duplicates $C/meet_trained_func.mln -e $C/21-Meet_WalkSplit.id1_id3.db -q HoldsAt \
	--cw Happens,StartTime,Next,OrientationMove,Close

# WFOMC, learning and test log-likelihood on the shared MLNs.
F=$M/smokers/forclift
c mln-wfomc-friendsmoker wfomc $F/friendsmoker.mln
c mln-wfomc-friendsmoker-json wfomc $F/friendsmoker.mln --domain person=100 --output-format json
c mln-learn-lwl-smoking learn --method lwl -i $F/smoking.mln -t $F/smoking-train.db -o @O/learned.mln
c mln-loglik-smoking loglik o/mln-learn-lwl-smoking/learned.mln $F/smoking-test.db
c mln-learn-pll-smoking learn --method pll -i $F/smoking.mln -t $F/smoking-train.db
c mln-loglik-smoking-out loglik $F/smoking-out.mln $F/smoking-test.db $F/smoking-train.db
c mln-learn-pll-univ learn --method pll -i $M/univ/forclift/univ.mln -t $M/univ/forclift/univ-train.db
I=$M/imdb/forclift
# lwl on imdb (two folds) takes 18 s to converge; 20 iterations:
c mln-learn-lwl-imdb learn --method lwl --max-iter 20 -i experiments/wfomc/models/imdb.mln -t $I/imdb_fold1.db,$I/imdb_fold2.db -o @O/learned.mln
c mln-loglik-imdb loglik --output-format json o/mln-learn-lwl-imdb/learned.mln $I/imdb_fold3.db
c mln-learn-pll-imdb learn --method pll -i experiments/wfomc/models/imdb.mln -t $I/imdb_fold1.db,$I/imdb_fold2.db
for m in smd sgd; do
	c mln-learn-$m-smoking learn --method $m --pieces tree --passes 2 --batch-size 4 --ne Smokes,Cancer \
		-i $F/smoking.mln -t $F/smoking-train.db --holdout $F/smoking-test.db --log @O/curve.json
done
c mln-learn-smd-imdb learn --method smd --pieces tree --passes 0.3 --batch-size 100 --step 0.05 --ne workedUnder,actor,director \
	-i experiments/online/imdb.mln -t $I/imdb_fold1.db --holdout $I/imdb_fold2.db --log @O/curve.json
c mln-learn-scg-imdb learn --method scg --max-iter 3 --ne workedUnder,actor,director -i experiments/online/imdb.mln -t $I/imdb_fold1.db
c mln-learn-lbfgs-bp-smoking learn --method lbfgs-bp --max-iter 5 --ne Smokes,Cancer -i $F/smoking.mln -t $F/smoking-train.db --holdout $F/smoking-test.db
