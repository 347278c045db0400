/* switchcost: the round trip of one byte through two pipes, between two
 * threads of one process and between two processes, 20000 times each,
 * three times in turn. The difference is what switching the address space
 * adds to two context switches; a testbed frame crossing from a rank to
 * the forwarder and on to the other rank pays it whenever they share a
 * CPU (bench/testbedlat/steps.sh). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { N = 20000 };
static int ping[2], pong[2];

static double usec(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void *echo(void *arg) {
	char c;
	(void)arg;
	for (int i = 0; i < N; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

/* roundtrip returns the mean round trip in usec with the echo in a thread
 * (processes == 0) or in a child process. */
static double roundtrip(int processes) {
	pthread_t th;
	pid_t pid = 0;
	char c = 1;
	if (pipe(ping) || pipe(pong))
		return -1;
	if (processes) {
		if ((pid = fork()) == 0) {
			echo(NULL);
			_exit(0);
		}
	} else {
		pthread_create(&th, NULL, echo, NULL);
	}
	double t0 = usec();
	for (int i = 0; i < N; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
	double t = (usec() - t0) / N;
	if (processes)
		waitpid(pid, NULL, 0);
	else
		pthread_join(th, NULL);
	close(ping[0]), close(ping[1]), close(pong[0]), close(pong[1]);
	return t;
}

int main(void) {
	for (int r = 0; r < 3; r++) {
		double th = roundtrip(0), pr = roundtrip(1);
		printf("# pipe round trip: threads %.1f usec, processes %.1f usec (difference %.1f)\n", th, pr, pr - th);
	}
	return 0;
}
