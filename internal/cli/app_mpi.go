//go:build mpi

package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/mpi"
)

func init() { appMPIRank = runAppMPIRank }

// runAppMPIRank is one rank of "mpbench app NAME" in a job started by an
// MPI launcher, e.g.
//
//	mpirun --allow-run-as-root --oversubscribe -np 2 ./mpbench-mpi app ep --class A
//
// The application runs on MPI_COMM_WORLD of the linked library, with the
// library's own collectives unless --coll overrides them. Bad options and
// a failed verification end every rank with MPI_Finalize, the message
// printed once by rank 0; a failed run exits without MPI_Finalize and the
// launcher ends the other ranks.
func runAppMPIRank(cmd *cobra.Command, f *appFlags, inv *invocation, body appBody) error {
	world, err := mpi.InitThread(mpi.ThreadFunneled)
	if err != nil {
		return err
	}
	if err := checkMPIWorld(cmd.ErrOrStderr(), world, f.flags.Changed("np"), f.np, "app"); err != nil {
		return err
	}
	version, _, _ := strings.Cut(strings.Join(strings.Fields(firstLine(mpi.LibraryVersion())), " "), ",")
	name := "mpi (" + version + ")"
	err = appRank(context.Background(), cmd, f, inv, world, jobTransport{Name: name}, body)
	switch {
	case err == nil:
		return mpi.Finalize()
	case errors.Is(err, errNotVerified):
		return reportAndFinalize(cmd.ErrOrStderr(), world.Rank(), err)
	}
	return err
}
