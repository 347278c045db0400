package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// Version is mpbench's version; release builds set it with
// -ldflags "-X github.com/mpbench/mpbench/internal/cli.Version=1.2.3".
var Version = "0.1.0-dev"

// newVersionCmd is "mpbench version".
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mpbench version, Go version and OS/architecture",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "mpbench %s %s %s/%s\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
