package bench

import "fmt"

// measure runs one message size on this active rank: probe, agreement on
// the repetition count, warm-up, barriers, timed loop and, under -check,
// the verification pass. It returns this rank's record (time per
// iteration in usec after Spec.ScaleTime; defect count and first defect)
// and the repetition count.
func (r *blockRun) measure(bytes int64, prev int) (record, int, error) {
	spec := &r.plan.spec
	bufs, err := newBuffers(spec, bytes, r.plan.block.Processes, r.opts, r.bufs)
	if err != nil {
		return record{}, 0, r.errf(bytes, "%w", err)
	}
	r.bufs = bufs
	env := &Env{Comm: r.group, Bytes: bytes, Sync: r.opts.Sync, RootShift: r.opts.RootShift,
		Algorithms: r.opts.Algorithms, bufs: bufs}

	// Probe one iteration; rank 0 fixes n from the slowest rank.
	probe, err := spec.Kernel(env, 1)
	if err != nil {
		return record{}, 0, r.errf(bytes, "probe: %w", err)
	}
	probes, err := gather(r.active, record{value: probe}, tagProbe)
	if err != nil {
		return record{}, 0, r.errf(bytes, "gather probe: %w", err)
	}
	var agreed record
	if r.active.Rank() == 0 {
		slowest := 0.0
		for _, p := range probes {
			slowest = max(slowest, p.value)
		}
		agreed.count = int64(CapRepetitions(r.opts.BaseRepetitions(bytes), prev, slowest, r.opts.TimeLimit))
	}
	if agreed, err = bcast(r.active, agreed, tagReps); err != nil {
		return record{}, 0, r.errf(bytes, "repetitions: %w", err)
	}
	n := int(agreed.count)

	if r.opts.Warmup {
		if _, err := spec.Kernel(env, WarmupRepetitions(n)); err != nil {
			return record{}, 0, r.errf(bytes, "warm-up: %w", err)
		}
	}
	for range 2 { // IMB's N_BARR
		if err := r.active.Barrier(); err != nil {
			return record{}, 0, r.errf(bytes, "barrier: %w", err)
		}
	}
	secs, err := spec.Kernel(env, n)
	if err != nil {
		return record{}, 0, r.errf(bytes, "%w", err)
	}
	scale := spec.ScaleTime
	if scale == 0 {
		scale = 1
	}
	res := record{value: secs / float64(n) * 1e6 * scale}
	if r.opts.Check && spec.Expect != nil {
		if res.count, res.note, err = r.verify(env, n); err != nil {
			return record{}, 0, r.errf(bytes, "-check pass: %w", err)
		}
	}
	return res, n, nil
}

// verify is the -check pass: for each of the n repetitions, untimed, every
// rank fills its send area with Pattern(group rank, bytes, rep), overwrites
// its receive area with the complement of what it expects, runs one
// iteration and compares every byte. Checking outside the timed loop keeps
// times undistorted; IMB instead checks the last receive buffer of a
// sample. It returns the number of wrong bytes and a description of the
// first.
func (r *blockRun) verify(env *Env, n int) (defects int64, note string, err error) {
	spec := &r.plan.spec
	defer func() { env.first = 0 }()
	var want []byte
	for rep := 0; rep < n; rep++ {
		env.first = rep
		send := env.Send(0)
		if spec.Fill != nil {
			spec.Fill(env, rep, send)
		} else {
			Pattern(send, env.Comm.Rank(), env.Bytes, rep, 0)
		}
		if corruptSend != nil {
			corruptSend(env, rep, send)
		}
		got := env.Recv(0)
		if want == nil {
			want = make([]byte, len(got))
		}
		spec.Expect(env, rep, want)
		poison(got, want)
		if _, err := spec.Kernel(env, 1); err != nil {
			return defects, note, err
		}
		if spec.Received != nil {
			k := spec.Received(env, rep)
			got, want = got[:k], want[:k]
		}
		count, off := firstDefect(got, want)
		if count > 0 && note == "" {
			note = fmt.Sprintf("bench: %s: %d bytes: rank %d: -check: byte offset %d of the receive area in repetition %d is 0x%02x, want 0x%02x (%d wrong bytes in that repetition)",
				r.name(), env.Bytes, r.world.Rank(), off, rep, got[off], want[off], count)
		}
		defects += count
		want = want[:cap(want)]
	}
	return defects, note, nil
}

// corruptSend, when set (by tests only), alters a rank's send area after
// the -check fill, to prove that a wrong contribution is detected.
var corruptSend func(e *Env, rep int, send []byte)
