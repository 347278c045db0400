package bench

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mpbench/mpbench/comm"
)

// area is a buffer cut into equal slots, one per repetition, reused
// cyclically. Without -off_cache it has one slot, so every repetition reuses
// the same bytes (and measures from cache, as IMB does by default).
//
// With -off_cache (IMB's -off_cache cache_size[,cache_line_size], see
// IMB_mem_manager.c, IMB_init_buffers_iter, and IMB_mem_info.h) the slot
// stride is the area size rounded up to a cache line plus one more line
// (so a slot starts at least 2 lines after the line where the previous
// one ends), and the slots span twice the cache size, so a repetition's
// bytes have been evicted by the time the cycle comes back to them; as in
// IMB there are never more slots than the size's base repetition count
// (IMB's cache_iter = min(n_sample, ...)), which matters only to Uniband
// and Biband, whose window of messages takes slots 0..window-1.
type area struct {
	buf    []byte
	size   int // bytes per slot in use
	stride int // bytes between slot starts
	slots  int
	lib    comm.MemAllocator // the allocator buf came from; nil: Go memory
}

// newArea returns an area for size bytes per repetition, laid out for
// alloc >= size bytes per repetition (IMB's s_len or r_len, see
// allocBytes); cache is the off-cache size in bytes (0: off), line the
// cache line in bytes and reps the base repetition count
// (Options.SampleRepetitions). With lib nil it reuses reuse's memory when
// large enough (a block's sizes share buffers), else allocates Go memory;
// with lib it takes new memory from lib, which the caller returns with
// free. New memory has every byte written (fill).
func newArea(size, alloc int64, cache int64, line, reps int, reuse []byte, lib comm.MemAllocator) (*area, error) {
	if size < 0 || alloc < size || alloc > 4*MaxMsgLen {
		return nil, fmt.Errorf("buffer of %d bytes (%d allocated): outside 0..%d", size, alloc, 4*MaxMsgLen)
	}
	a := &area{size: int(size)}
	a.stride, a.slots = layout(alloc, cache, line, reps)
	need := a.stride*(a.slots-1) + int(alloc)
	switch {
	case lib != nil:
		// IMB asks for whole slots, cache_iter x offs (s_alloc), one
		// stride more than the last slot's message needs under
		// -off_cache; the size decides where the allocator places it.
		whole := a.stride * a.slots
		buf, err := lib.AllocMem(whole)
		if err != nil {
			return nil, fmt.Errorf("buffer of %d bytes: %w", whole, err)
		}
		a.buf, a.lib = buf[:need], lib
		fill(a.buf)
	case cap(reuse) >= need:
		a.buf = reuse[:need]
	default:
		a.buf = make([]byte, need)
		fill(a.buf)
	}
	return a, nil
}

// free returns the area's memory to the allocator it came from; Go memory
// is left to the garbage collector.
func (a *area) free() error {
	if a == nil || a.lib == nil {
		return nil
	}
	lib, buf := a.lib, a.buf
	a.buf, a.lib = nil, nil
	return lib.FreeMem(buf)
}

// fill writes data into every byte of a new buffer, as IMB initialises its
// buffers before timing (IMB_init_buffers, IMB_ass_buf). Memory fresh from
// the kernel that was never written is backed by the one shared zero page:
// a send from it reads 4 KiB over and over from the CPU's cache, which made
// large PingPong messages up to 1.5 times faster than from a written
// buffer. Writing it also takes the page faults before the timed
// repetitions. The bytes differ from page to page (and from zero).
func fill(buf []byte) {
	for i := range buf {
		buf[i] = byte(i*7+1) ^ byte(i>>12)<<1 | 1
	}
}

// layout returns the slot stride and count of an area of size bytes per
// repetition with reps base repetitions (see area): without off-cache one
// slot of size bytes; with it IMB's offs = (ceil(size / line) + 1) x line
// and cache_iter = min(reps, ceil(2 x cache / offs)), at least 1.
func layout(size int64, cache int64, line, reps int) (stride, slots int) {
	if cache <= 0 {
		return int(size), 1
	}
	if line <= 0 {
		line = DefaultCacheLine
	}
	stride = (int(size)+line-1)/line*line + line
	slots = int(min((2*cache+int64(stride)-1)/int64(stride), int64(reps)))
	return stride, max(slots, 1)
}

// bufferBytes is the memory in bytes one rank's buffers take for spec s
// at message size bytes on procs processes under options o: whole slots,
// as IMB counts it against -mem.
func bufferBytes(s *Spec, bytes int64, procs int, o *Options) int64 {
	total := int64(0)
	sb, rb := s.areas(allocBytes(bytes), procs)
	for _, size := range []int64{sb, rb} {
		stride, slots := layout(size, o.cacheBytes(), o.CacheLine, o.SampleRepetitions(s, bytes, procs))
		total += int64(stride) * int64(slots) // IMB's s_alloc + r_alloc (used_mem)
	}
	return total
}

// assignSize is IMB's asize, sizeof(assign_type) (float, IMB_settings.h).
const assignSize = 4

// allocBytes is the message size IMB lays buffers out for, its init_size =
// max(size, asize) (helper_IMB_functions.h, IMB_init_buffers_iter): a
// message of fewer than 4 bytes gets areas, slots and -mem accounting of
// 4, while the calls move size bytes.
func allocBytes(bytes int64) int64 { return max(bytes, assignSize) }

// cacheBytes is the -off_cache size in bytes, 0 when off.
func (o *Options) cacheBytes() int64 {
	if o.OffCache == -1 {
		return DefaultCacheBytes
	}
	return o.OffCache
}

// area returns the slot of repetition rep (rep >= 0).
func (a *area) area(rep int) []byte {
	off := (rep % a.slots) * a.stride
	return a.buf[off : off+a.size : off+a.size]
}

// buffers are the send and receive areas of one measurement.
type buffers struct {
	send, recv *area
}

// newBuffers returns the areas of spec s for message size bytes on procs
// processes under the off-cache options of o. With lib nil they reuse the
// Go memory of prev (nil for none); with lib (an MPI library's
// MPI_Alloc_mem) both are new memory from lib, as IMB-MPI1 allocates its
// buffers for every message size and frees them after it
// (IMB_init_buffers_iter, IMB_del_s_buf), and the caller frees them.
func newBuffers(s *Spec, bytes int64, procs int, o *Options, prev *buffers, lib comm.MemAllocator) (*buffers, error) {
	var reuseSend, reuseRecv []byte
	if prev != nil {
		reuseSend, reuseRecv = prev.send.buf, prev.recv.buf
	}
	cache := o.cacheBytes()
	sb, rb := s.areas(bytes, procs)
	sa, ra := s.areas(allocBytes(bytes), procs)
	reps := o.SampleRepetitions(s, bytes, procs)
	send, err := newArea(sb, sa, cache, o.CacheLine, reps, reuseSend, lib)
	if err != nil {
		return nil, err
	}
	recv, err := newArea(rb, ra, cache, o.CacheLine, reps, reuseRecv, lib)
	if err != nil {
		return nil, errors.Join(err, send.free())
	}
	return &buffers{send: send, recv: recv}, nil
}

// free returns both areas' memory to their allocator (see area.free).
func (b *buffers) free() error {
	return errors.Join(b.send.free(), b.recv.free())
}

// Pattern fills buf with the -check pattern of world-independent group rank
// rank, message size bytes and repetition rep, starting at byte offset off
// of the message (so a receive area holding several messages can be
// expected piecewise). Different (rank, bytes, rep) give unrelated byte
// streams, so a message from the wrong rank or repetition, a truncated
// message or a flipped byte is detected. (IMB's -DCHECK fills buffers with
// BUF_VALUE(rank,i) = 0.1*(rank+1)+i; mpbench checks bytes, not floats, and
// adds the repetition so stale data is caught too.)
func Pattern(buf []byte, rank int, bytes int64, rep int, off int64) {
	seed := mix(uint64(rank)<<1 ^ uint64(bytes)<<20 ^ uint64(rep)<<45 ^ 0x5bd1e995)
	var w [8]byte
	for i := range buf {
		pos := uint64(off) + uint64(i)
		if i == 0 || pos%8 == 0 {
			binary.LittleEndian.PutUint64(w[:], mix(seed^(pos/8)))
		}
		buf[i] = w[pos%8]
	}
}

// mix is the splitmix64 finaliser (Steele, Lea, Flood: "Fast splittable
// pseudorandom number generators", OOPSLA 2014).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// poison overwrites buf with the complement of want, so that every byte a
// receive does not write is reported as a defect.
func poison(buf, want []byte) {
	for i := range buf {
		buf[i] = ^want[i]
	}
}

// firstDefect compares got with want and returns the number of differing
// bytes and the offset of the first (-1 when equal).
func firstDefect(got, want []byte) (count int64, first int) {
	first = -1
	for i := range want {
		if got[i] != want[i] {
			if first < 0 {
				first = i
			}
			count++
		}
	}
	return count, first
}

// ExpectFrom returns a Spec.Expect for point-to-point patterns: sources(rank,
// procs) names, for the calling group rank, the group rank whose send area
// lands in each consecutive e.Bytes-long part of the receive area.
func ExpectFrom(sources func(rank, procs int) []int) func(e *Env, rep int, want []byte) {
	return func(e *Env, rep int, want []byte) {
		for k, src := range sources(e.Comm.Rank(), e.Comm.Size()) {
			lo := int64(k) * e.Bytes
			Pattern(want[lo:lo+e.Bytes], src, e.Bytes, rep, 0)
		}
	}
}
