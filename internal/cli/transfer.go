package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpbench/mpbench/analysis"
	"github.com/mpbench/mpbench/transfer"
)

// newTransferCmd builds "mpbench transfer": the study's file-transfer test.
func newTransferCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "transfer",
		Short: "The study's file-transfer test: time files of 0 B to 100 MB sent over TCP between two hosts",
		Long: `mpbench transfer measures a network the way the study characterised its networks
(seed 000, section 3.1): files of 0, 1, 1K, 1M, 10M and 100M bytes sent 10 times
each over TCP, a new connection per file, timed until the receiver confirms.
Start "mpbench transfer serve" on one host, then "mpbench transfer send HOST"
on another. On a testbed:

  mpbench testbed exec --node 1 -- mpbench transfer serve &
  mpbench testbed exec --node 2 -- mpbench transfer send 10.77.0.1 --wire eth:100m`,
	}
	cmd.AddCommand(newTransferServeCmd(), newTransferSendCmd())
	return cmd
}

func newTransferServeCmd() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Receive files until stopped (Ctrl-C)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ln, err := listenTCP(listen)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "# mpbench transfer: serving on %s\n", ln.Addr())
			return transfer.Serve(ln)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", ":"+strconv.Itoa(transfer.DefaultPort), "address and port to listen on")
	return cmd
}

// listenTCP listens on addr, the --listen option of transfer serve. An
// address that is not [HOST]:PORT, or that cannot be bound (a port in use,
// an address of another host), is a usage error naming the option, the
// cause and the form: "--listen bad: expected [HOST]:PORT, e.g. :5001 or
// 10.77.0.1:5001".
func listenTCP(addr string) (net.Listener, error) {
	example := fmt.Sprintf("e.g. :%d or 10.77.0.1:%d", transfer.DefaultPort, transfer.DefaultPort)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageErrorf("--listen %s: expected [HOST]:PORT, %s", addr, example)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
			err = u // the innermost cause: "address already in use"
		}
		return nil, usageErrorf("--listen %s: cannot listen (%v); expected a free port on an address of this host, %s", addr, err, example)
	}
	return ln, nil
}

func newTransferSendCmd() *cobra.Command {
	var sizes, wire, jsonPath, csvPath string
	var repeat int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "send HOST[:PORT]",
		Short: "Send files of each size to a transfer server and print time and Mbit/s",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := transfer.ParseSizes(sizes)
			if err != nil {
				return usageErrorf("--sizes: %v", err)
			}
			if repeat < 1 {
				return usageErrorf("--repeat %d: give 1 or more", repeat)
			}
			var m *analysis.WireModel
			if wire != "" {
				wm, err := analysis.ParseWireModel(wire)
				if err != nil {
					return usageErrorf("--wire: %v", err)
				}
				m = &wm
			}
			addr := args[0]
			if _, _, err := net.SplitHostPort(addr); err != nil {
				addr = net.JoinHostPort(addr, strconv.Itoa(transfer.DefaultPort))
			}
			jf, cf, err := openTransferOutputs(jsonPath, csvPath)
			if err != nil {
				return err
			}
			defer jf.Close()
			defer cf.Close()
			dial := func() (net.Conn, error) { return net.DialTimeout("tcp", addr, timeout) }
			title := fmt.Sprintf("mpbench transfer to %s, %d repeats per size, a new TCP connection per file", addr, repeat)
			rows, err := transfer.Measure(dial, addr, transfer.Plan{Sizes: list, Repeat: repeat, Wire: m}, func(r transfer.Row) {
				if jf != nil {
					transfer.WriteJSON(jf, r)
				}
				if cf != nil {
					transfer.WriteCSV(cf, r)
				}
			})
			transfer.WriteTable(cmd.OutOrStdout(), title, rows, m)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&sizes, "sizes", "0,1,1K,1M,10M,100M", "file sizes, bytes with K/M/G (10^3..) or Ki/Mi/Gi (2^10..)")
	fl.IntVar(&repeat, "repeat", 10, "transfers per size")
	fl.StringVar(&wire, "wire", "", "wire model for % of line rate and % of model (e.g. eth:100m, eth:10m); see mpbench analyze --wire")
	fl.StringVar(&jsonPath, "json", "", "write one JSON object per size to this file")
	fl.StringVar(&csvPath, "csv", "", "write one CSV row per size to this file")
	fl.DurationVar(&timeout, "connect-timeout", 10*time.Second, "give up connecting after this long")
	return cmd
}

// openTransferOutputs creates the --json and --csv files (nil when not
// asked for) and writes the CSV header, after the checks and in the words
// of the other commands' --json and --csv (checkOutputPaths): not "-",
// which is standard output and carries the table, not one file for both,
// and writable.
func openTransferOutputs(jsonPath, csvPath string) (jf, cf *os.File, err error) {
	if err := checkOutputPaths(jsonPath, csvPath, stdoutTransfer); err != nil {
		return nil, nil, err
	}
	if jsonPath != "" {
		if jf, err = os.Create(jsonPath); err != nil {
			return nil, nil, cannotCreate("--json", jsonPath, err)
		}
	}
	if csvPath != "" {
		if cf, err = os.Create(csvPath); err != nil {
			jf.Close()
			return nil, nil, cannotCreate("--csv", csvPath, err)
		}
		fmt.Fprintln(cf, strings.Join(transfer.CSVHeader, ","))
	}
	return jf, cf, nil
}
