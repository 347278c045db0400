package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// proc is a process as /proc shows it: its id and its start time (clock
// ticks after boot, proc(5) field 22), which together name it even after
// the id is reused.
type proc struct {
	pid   int
	start uint64
}

// statFields returns the fields of /proc/PID/stat after the command name
// (field 3, the state, first), or nil when the process is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')') // the name may contain blanks and ')'
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

// procOf returns pid's start time, or false when it is gone.
func procOf(pid int) (proc, bool) {
	f := statFields(pid)
	if len(f) < 20 {
		return proc{}, false
	}
	st, err := strconv.ParseUint(f[19], 10, 64) // field 22
	return proc{pid: pid, start: st}, err == nil
}

// alive reports whether p still runs (not a zombie: a zombie has exited
// and only waits for its parent to read its status).
func (p proc) alive() bool {
	f := statFields(p.pid)
	if len(f) < 20 || f[0] == "Z" {
		return false
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	return err == nil && st == p.start
}

// allPids lists every process id in /proc.
func allPids() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// children returns the processes whose parent is pid, in the order they
// were started (start time, then id).
func children(pid int) []proc {
	want := strconv.Itoa(pid)
	var out []proc
	for _, p := range allPids() {
		f := statFields(p)
		if len(f) < 20 || f[1] != want {
			continue
		}
		if pr, ok := procOf(p); ok {
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].start != out[j].start {
			return out[i].start < out[j].start
		}
		return out[i].pid < out[j].pid
	})
	return out
}

// environ returns the value of variable key in pid's initial environment,
// or "".
func environ(pid int, key string) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == key {
			return string(v)
		}
	}
	return ""
}

// withEnv lists the live processes whose initial environment sets key to
// value.
func withEnv(key, value string) []proc {
	var out []proc
	for _, p := range allPids() {
		if environ(p, key) == value {
			if pr, ok := procOf(p); ok && pr.alive() {
				out = append(out, pr)
			}
		}
	}
	return out
}

// segments lists the files in dir whose names start with prefix.
func segments(dir, prefix string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	return m
}

// killProc kills p (SIGCONT first, so that a stopped process dies at
// once).
func killProc(p proc) {
	syscall.Kill(p.pid, syscall.SIGCONT)
	syscall.Kill(p.pid, syscall.SIGKILL)
}
