//go:build !linux

package busypoll

import "runtime"

// Yield gives up the calling goroutine's processor (runtime.Gosched); on
// Linux it gives up the thread's CPU.
func Yield() { runtime.Gosched() }
