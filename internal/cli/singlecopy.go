package cli

import (
	"fmt"
	"strings"

	"github.com/mpbench/mpbench/comm"
	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/transport/shm"
)

// copyPathTag is the reserved tag (its own context: no benchmark message
// can match it) of the start-up exchange of copy paths.
const copyPathTag = comm.MinReservedTag

// maxCopyReaders bounds the ranks named per cause in the "# Single copy"
// line; the rest are counted.
const maxCopyReaders = 8

// singleCopyInfo gathers on rank 0 how every rank reads large payloads
// from each peer on its host (mine: this rank's shm copy paths by source
// rank, launch.CopyPaths; nil without shared memory) and returns there the
// text of the "# Single copy" header line (describeCopyPaths); other ranks
// return "". Every rank of a job on mpbench's runtime calls it once, before
// the benchmarks: each sends Size bytes to rank 0.
func singleCopyInfo(c comm.Comm, mine []shm.CopyPath) (string, error) {
	n := c.Size()
	row := make([]byte, n)
	for r, p := range mine {
		row[r] = byte(p)
	}
	if c.Rank() != 0 {
		if err := c.Send(row, 0, copyPathTag); err != nil {
			return "", fmt.Errorf("sending its single-copy paths to rank 0: %w", err)
		}
		return "", nil
	}
	paths := make([][]shm.CopyPath, n)
	paths[0] = mine
	for r := 1; r < n; r++ {
		if _, err := c.Recv(row, r, copyPathTag); err != nil {
			return "", fmt.Errorf("receiving rank %d's single-copy paths: %w", r, err)
		}
		paths[r] = make([]shm.CopyPath, n)
		for s, b := range row {
			paths[r][s] = shm.CopyPath(b)
		}
	}
	return describeCopyPaths(paths), nil
}

// describeCopyPaths summarises paths[reader][sender] (a nil row: no
// shared memory on that rank) in one line (field case B35): "" when no two
// ranks share a host; how many reader-sender pairs on one host read large
// payloads by single copy (process_vm_readv); and for every pair that
// copies through the rings instead, why, with the ranks concerned as
// "rank 1 from 0,2-3" (the reader, then the senders it cannot read; at
// most maxCopyReaders readers per cause, the others counted).
func describeCopyPaths(paths [][]shm.CopyPath) string {
	count := map[shm.CopyPath]int{}
	total := 0
	for _, row := range paths {
		for _, p := range row {
			if p != shm.PathNone {
				count[p]++
				total++
			}
		}
	}
	switch {
	case total == 0:
		return ""
	case count[shm.PathSingle] == total:
		return fmt.Sprintf("process_vm_readv for every pair of ranks on one host (%d reader-sender pairs)", total)
	case count[shm.PathOff] == total:
		return fmt.Sprintf("turned off (MPBENCH_SHM_CMA=-1): large payloads copied through the rings (%d reader-sender pairs)", total)
	}
	parts := []string{fmt.Sprintf("process_vm_readv for %d of %d reader-sender pairs on one host, the rings for %d", count[shm.PathSingle], total, total-count[shm.PathSingle])}
	for _, why := range []shm.CopyPath{shm.PathRefused, shm.PathUnsupported, shm.PathOff, shm.PathFailed} {
		if count[why] == 0 {
			continue
		}
		var readers []string
		for reader, row := range paths {
			var from []int
			for src, p := range row {
				if p == why {
					from = append(from, src)
				}
			}
			if len(from) > 0 {
				readers = append(readers, fmt.Sprintf("rank %d from %s", reader, result.FormatRanges(from)))
			}
		}
		if len(readers) > maxCopyReaders {
			readers = append(readers[:maxCopyReaders], fmt.Sprintf("%d more ranks", len(readers)-maxCopyReaders))
		}
		parts = append(parts, fmt.Sprintf("%s for %d: %s", why, count[why], strings.Join(readers, ", ")))
	}
	return strings.Join(parts, "; ")
}
