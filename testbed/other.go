//go:build !linux

package testbed

import (
	"errors"
	"os"
)

// ErrUnsupported wraps every error saying that this host cannot build a
// testbed; on this system that is every call.
var ErrUnsupported = errors.New("testbed unsupported here")

// ErrBusy is wrapped when a testbed of the same name is up.
var ErrBusy = errors.New("testbed is up")

var errLinux = refuse(ErrUnsupported, "the testbed needs Linux (network namespaces, TAP devices)")

// ForwarderArgs: see the Linux build.
var ForwarderArgs = []string{"testbed", "forward"}

// Probe reports that the testbed needs Linux.
func Probe() error { return errLinux }

// Up reports that the testbed needs Linux.
func Up(Config) (State, error) { return State{}, errLinux }

// Down reports that the testbed needs Linux.
func Down(string) (bool, error) { return false, errLinux }

// Names returns no testbeds.
func Names() []string { return nil }

// Alive reports false.
func Alive(State) bool { return false }

// InNode reports that the testbed needs Linux.
func InNode(string, func() error) error { return errLinux }

// ExecInNode reports that the testbed needs Linux.
func ExecInNode(string, []string) error { return errLinux }

// RunForwarder reports that the testbed needs Linux.
func RunForwarder(string, *os.File) error { return errLinux }

// Check reports that the testbed needs Linux.
func Check(State, CheckOptions) ([]CheckRow, error) { return nil, errLinux }
