//go:build race

package comm_test

// raceEnabled: the race detector is on (its sync.Pool drops a quarter of
// what is put, so pooled requests are allocated again).
const raceEnabled = true
