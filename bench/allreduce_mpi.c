/* allreduce_mpi.c: the plain C MPI_Allreduce that bench/allreduce.lua compares torch.distributed's
 * all_reduce with (same sizes, same iterations, same launch). Prints "<bytes> <seconds per call>"
 * on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    for (int a = 2; a < argc; a++) {
        long n = atol(argv[a]) / 4;
        float *x = malloc((size_t)n * sizeof *x);
        for (long i = 0; i < n; i++) x[i] = 1.0f;
        double best = 1e30;
        MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); /* warm up */
        for (int it = 0; it < iters; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (t < best) best = t;
        }
        if (rank == 0) printf("%ld %.9f\n", n * 4, best);
        free(x);
    }
    MPI_Finalize();
    return 0;
}
