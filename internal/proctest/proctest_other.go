//go:build !linux

package proctest

import "syscall"

// dieWithParent does nothing: only Linux kills a child with its parent.
func dieWithParent(*syscall.SysProcAttr) {}

// killChildren does nothing without /proc to list the children; the
// processes Bind started are killed by the tests' cleanups only.
func killChildren() []int { return nil }
