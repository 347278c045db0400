package comm

import "time"

// processStart is the origin of Wtime: the time this package was
// initialised, read from Go's monotonic clock.
var processStart = time.Now()

// Wtime returns the seconds elapsed since processStart on the monotonic
// clock (MPI_Wtime). Values are comparable within one process only.
func (c *communicator) Wtime() float64 {
	return time.Since(processStart).Seconds()
}

// Wtick returns 1e-9 seconds (MPI_Wtick): Go's monotonic readings are
// integer nanoseconds (time.Duration), and on Linux the underlying
// CLOCK_MONOTONIC has a clock_getres resolution of 1 ns.
func (c *communicator) Wtick() float64 { return 1e-9 }
