package shm

import "golang.org/x/sys/cpu"

// fastRepMove: the CPU has enhanced REP MOVSB (ERMS), which moves whole
// cache lines at a time.
var fastRepMove = cpu.X86.HasERMS

// repMove copies n bytes from src to dst with REP MOVSB (move_amd64.s);
// the ranges must not overlap.
//
//go:noescape
func repMove(dst, src *byte, n uintptr)
