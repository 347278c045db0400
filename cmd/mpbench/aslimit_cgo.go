//go:build linux && cgo

package main

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

// mpbench_check_address_space runs when the program is loaded, before Go's
// runtime starts: under an address-space limit (ulimit -v) below
// MPBENCH_MIN_AS_KIB, Go's runtime fails before main with its own fatal
// error and stack (from 100000 to 700000 and 1200000 to 1300000 KiB), so
// the refusal that cli.checkAddressSpace prints once main runs is printed
// here, in the same words: as the rank's report to its launcher when a
// launcher started it (MPBENCH_RENDEZVOUS set on this host, or the single
// argument launch.BootstrapArg on another; glibc passes argc and argv to
// constructors), else as mpbench's one line. Exit status 1.
#define MPBENCH_MIN_AS_KIB 1500000ULL
__attribute__((constructor)) static void mpbench_check_address_space(int argc, char **argv) {
	struct rlimit r;
	if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY || (r.rlim_cur >> 10) >= MPBENCH_MIN_AS_KIB) {
		return;
	}
	const char *rv = getenv("MPBENCH_RENDEZVOUS");
	int rank = (rv != NULL && rv[0] != 0) || (argc == 2 && argv != NULL && argv[1] != NULL && strcmp(argv[1], "--mpbench-bootstrap=stdin") == 0);
	char line[1024];
	int n = snprintf(line, sizeof line,
		"%sthe address-space limit (ulimit -v %llu) is below the %llu KiB mpbench needs: Go's runtime reserves about 1.1 GiB of address space at start, "
		"beside what it uses; raise the limit (ulimit -v %llu, or unlimited), or limit memory with a cgroup (memory.max), which counts memory used, not reserved\n",
		rank ? "mpbench-rank-error: " : "mpbench: ",
		(unsigned long long)(r.rlim_cur >> 10), MPBENCH_MIN_AS_KIB, MPBENCH_MIN_AS_KIB);
	if (n > 0) {
		ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		(void)w;
	}
	_exit(1);
}
*/
import "C"
