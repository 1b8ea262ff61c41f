// Package reftest holds no code, only tests: it checks lifted's belief
// propagation against results computed by independent software, on the real
// models in the project's shared data directory (/work/shared/data, found from
// here as ../../../shared/data). Every test skips, saying so, when that
// directory is absent.
//
// What is checked:
//
//   - UAI models against libDAI 0.3.1 BP (uai/reference/NAME.bp-flood.json and
//     NAME.bp-seq.json, computed with the model's .evid evidence applied,
//     tol 1e-9, at most 10,000 iterations, no damping). Our BP runs with the
//     same schedule (flood ↔ bp.Flood, seq ↔ bp.Sequential), Tol 1e-9 and
//     MaxIter 10000, on the ground graph (lift.Ground) and on the colour-passing
//     compression (lift.Compress). Where libDAI converged, our marginals must
//     agree to 1e-6 (largest absolute difference over all variables and
//     states) and our Bethe log Z to 1e-6 relative; where it did not, ours must
//     not report convergence either. Under flooding, lifted and ground BP must
//     agree to 1e-9.
//
//   - libDAI's own regression output for tests/testfast.fg (fg/testfast.out):
//     the exact marginals against enumeration (a check of the reader and of
//     the variable order), and the BP blocks BP_SEQFIX, BP_PARALL and their
//     _LOG variants against our BP with the same schedule, at the precision
//     printed (four significant digits), together with the printed errors of
//     those runs against the exact answer (largest and mean total variation
//     distance of the variable marginals, and log Z minus the exact log Z).
//
//   - Compression on symmetric models (fg/horus_smokers27.fg and
//     uai/relational_3.uai, uai/relational_4.uai with their evidence): colour
//     passing must merge variables and factors, and lifted BP must equal
//     ground BP to 1e-9 under flooding.
//
// Known definition differences from libDAI, which the tests allow for and do
// not paper over: libDAI declares convergence when no variable or factor
// belief moved by more than tol in an iteration, we when no message did, so
// iteration counts differ slightly; and libDAI's SEQFIX visits factors in
// order and, within each, its variables in label order, while bp.Sequential
// visits variables in order and, within each, its factors, so sequential
// iteration counts differ more and only fixed points are compared.
//
// Models that take long are marked in the tests and skipped under -short.
package reftest
