//go:build !linux

package app

import "os/exec"

// dieWithParent does nothing where the kernel has no parent-death signal;
// the load processes are killed by StartLoad's stop.
func dieWithParent(*exec.Cmd) {}
