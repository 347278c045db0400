package bench

import (
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/mpbench/mpbench/comm"
)

// memSpy is a communicator whose library allocates message buffers
// (comm.MemAllocator) from Go memory it keeps track of, and which declines
// every timed loop it is offered (comm.LoopRunner) after noting whether
// the loop's buffers were live memory of its own.
type memSpy struct {
	comm.Comm
	mem *memLedger
}

// memLedger is what one rank's memSpy and its splits allocated.
type memLedger struct {
	mu      sync.Mutex
	live    map[*byte]int // start address: bytes allocated
	allocs  int           // AllocMem calls
	frees   int           // FreeMem calls
	loops   int           // loops offered
	foreign int           // loops offered on memory not live in live
	wrong   []string      // frees of memory not live
}

func (s *memSpy) AllocMem(bytes int) ([]byte, error) {
	b := make([]byte, max(bytes, 1))
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	s.mem.live[&b[0]] = len(b)
	s.mem.allocs++
	return b[:bytes], nil
}

func (s *memSpy) FreeMem(buf []byte) error {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	p := unsafe.SliceData(buf)
	if _, ok := s.mem.live[p]; !ok {
		s.mem.wrong = append(s.mem.wrong, "free of memory not allocated or freed twice")
		return errors.New("not live")
	}
	delete(s.mem.live, p)
	s.mem.frees++
	return nil
}

func (s *memSpy) RunLoop(l comm.Loop) (float64, error) {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	s.mem.loops++
	for _, sl := range []comm.Slots{l.Send, l.Recv} {
		if n, ok := s.mem.live[unsafe.SliceData(sl.Buf)]; !ok || len(sl.Buf) > n {
			s.mem.foreign++
		}
	}
	return 0, comm.ErrSkip
}

func (s *memSpy) Split(color, key int) (comm.Comm, error) {
	c, err := s.Comm.Split(color, key)
	if c == nil || err != nil {
		return c, err
	}
	return &memSpy{Comm: c, mem: s.mem}, nil
}

// TestBuffersComeFromTheLibrary runs point-to-point, window and collective
// benchmarks under -check and -off_cache on a communicator whose library
// allocates memory: as IMB-MPI1 takes every message size's buffers from
// MPI_Alloc_mem and frees them after the size, every loop must run on the
// library's live memory, every size must allocate a send and a receive
// buffer of its own, and nothing may be left allocated at the end.
func TestBuffersComeFromTheLibrary(t *testing.T) {
	names := []string{"PingPong", "Exchange", "Uniband", "Allreduce"}
	o := quick(names...)
	o.Check, o.OffCache = true, 4096
	var mu sync.Mutex
	ledgers := map[int]*memLedger{}
	sink, errs := runAll(t, 2, o, func(c comm.Comm) comm.Comm {
		m := &memLedger{live: map[*byte]int{}}
		mu.Lock()
		ledgers[c.Rank()] = m
		mu.Unlock()
		return &memSpy{Comm: c, mem: m}
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	sizes, per := 0, map[string]int{}
	for _, r := range sink.rows {
		if r.Defects != 0 {
			t.Errorf("%s %d bytes: %v defects on the library's memory", r.Benchmark, r.Bytes, r.Defects)
		}
		sizes++
		per[r.Benchmark]++
	}
	for _, name := range names {
		if per[name] < 3 {
			t.Fatalf("%d rows of %s, want at least 3 sizes; rows: %v", per[name], name, per)
		}
	}
	for rank, m := range ledgers {
		if m.allocs != 2*sizes || m.frees != m.allocs || len(m.live) != 0 || len(m.wrong) != 0 {
			t.Errorf("rank %d: %d allocations, %d frees, %d left live, wrong frees %q; want %d allocations (a send and a receive buffer per size), all freed",
				rank, m.allocs, m.frees, len(m.live), m.wrong, 2*sizes)
		}
		if m.loops == 0 || m.foreign != 0 {
			t.Errorf("rank %d: %d of %d loops offered on buffers that are not the library's live memory", rank, m.foreign, m.loops)
		}
	}
}
