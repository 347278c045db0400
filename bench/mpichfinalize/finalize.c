/* Two ranks: rank 0 sends one message and enters MPI_Finalize; rank 1
 * waits DELAY_MS (argv[1]) before it receives that message, so the message
 * and rank 0's finalize traffic (the flush of its UCX endpoint) reach rank 1
 * together and are handled in the same progress call. See run.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x = 42;
    int delay_ms = argc > 1 ? atoi(argv[1]) : 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        usleep(delay_ms * 1000);
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    printf("rank %d left MPI_Finalize\n", rank);
    return 0;
}
