// dai_bench: the libDAI side of bench/libdai/compare.sh. Built against a
// libDAI checkout by compare.sh (nothing of libDAI is kept in this
// repository).
//
//   dai_bench bp FILE.fg seq|flood TOL MAXITER   BP (SEQFIX or PARALL, linear domain)
//   dai_bench gibbs FILE.fg SWEEPS SEED          single-site Gibbs sweeps, no burn-in
//   dai_bench jtree FILE.fg                      JTree (HUGIN, MINFILL, SUMPROD): exact
//
// Prints the CPU seconds of the inference alone (init + run, std::clock),
// the iterations (JTree: log Z), and for BP and JTree every variable's
// marginal, one line each.
#include <dai/alldai.h>
#include <dai/bp.h>
#include <dai/gibbs.h>
#include <dai/jtree.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

using namespace dai;

int main(int argc, char **argv) {
	if (argc < 3 || (argc < 5 && std::string(argv[1]) != "jtree")) {
		std::fprintf(stderr, "usage: dai_bench bp FILE.fg seq|flood TOL MAXITER | gibbs FILE.fg SWEEPS SEED | jtree FILE.fg\n");
		return 2;
	}
	std::string what = argv[1];
	FactorGraph fg;
	fg.ReadFromFile(argv[2]);
	if (what == "bp") {
		PropertySet opts;
		opts.set("tol", Real(std::atof(argv[4])));
		opts.set("maxiter", size_t(std::atol(argv[5])));
		opts.set("logdomain", false);
		opts.set("updates", std::string(argv[3]) == "seq" ? std::string("SEQFIX") : std::string("PARALL"));
		opts.set("verbose", size_t(0));
		std::clock_t t0 = std::clock();
		BP bp(fg, opts);
		bp.init();
		bp.run();
		double secs = double(std::clock() - t0) / CLOCKS_PER_SEC;
		std::printf("seconds %.6f iterations %zu maxdiff %g\n", secs, bp.Iterations(), bp.maxDiff());
		for (size_t i = 0; i < fg.nrVars(); i++) {
			Factor b = bp.belief(fg.var(i));
			std::printf("%zu", fg.var(i).label());
			for (size_t x = 0; x < b.nrStates(); x++)
				std::printf(" %.17g", b[x]);
			std::printf("\n");
		}
	} else if (what == "jtree") {
		PropertySet opts;
		opts.set("updates", std::string("HUGIN"));
		opts.set("heuristic", std::string("MINFILL"));
		opts.set("inference", std::string("SUMPROD"));
		opts.set("verbose", size_t(0));
		std::clock_t t0 = std::clock();
		JTree jt(fg, opts);
		jt.init();
		jt.run();
		double secs = double(std::clock() - t0) / CLOCKS_PER_SEC;
		std::printf("seconds %.6f logz %.17g\n", secs, double(jt.logZ()));
		for (size_t i = 0; i < fg.nrVars(); i++) {
			Factor b = jt.belief(fg.var(i));
			std::printf("%zu", fg.var(i).label());
			for (size_t x = 0; x < b.nrStates(); x++)
				std::printf(" %.17g", b[x]);
			std::printf("\n");
		}
	} else if (what == "gibbs") {
		PropertySet opts;
		opts.set("maxiter", size_t(std::atol(argv[3])));
		opts.set("burnin", size_t(0));
		opts.set("restart", size_t(std::atol(argv[3])) + 1);
		opts.set("verbose", size_t(0));
		rnd_seed(std::atol(argv[4]));
		std::clock_t t0 = std::clock();
		Gibbs g(fg, opts);
		g.init();
		g.run();
		double secs = double(std::clock() - t0) / CLOCKS_PER_SEC;
		std::printf("seconds %.6f iterations %zu\n", secs, g.Iterations());
	} else {
		std::fprintf(stderr, "dai_bench: unknown mode %s\n", what.c_str());
		return 2;
	}
	return 0;
}
