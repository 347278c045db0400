package bench

import (
	"fmt"

	"github.com/mpbench/mpbench/result"
)

// blockPlan is one block to run: a benchmark at one process count.
type blockPlan struct {
	spec  Spec
	block Block
	sizes []int64
}

// makePlan lists the blocks of a run on np processes in run order. Every
// rank computes the same plan, so plan errors need no communication.
func makePlan(o *Options, np int) ([]blockPlan, error) {
	names := o.Benchmarks
	if len(names) == 0 {
		names = DefaultNames()
	}
	sizes := o.Sizes()
	var plan []blockPlan
	var over memOver // the first size above -mem, and the run's largest need
	for _, name := range names {
		spec, ok := Lookup(name)
		if !ok {
			return nil, unknownBenchmark(name)
		}
		counts, err := spec.processCounts(o.NPMin, np)
		if err != nil {
			return nil, err
		}
		for _, p := range counts {
			nGroups := 1
			if o.Multi != result.MultiNone {
				nGroups = np / p
			}
			order := o.RankOrder(np)
			groups := make([][]int, nGroups)
			for g := range groups {
				groups[g] = order[g*p : (g+1)*p : (g+1)*p]
			}
			bp := blockPlan{spec: spec, sizes: sizes, block: Block{
				Benchmark: spec.Name, Class: spec.Class, Processes: p, Multi: o.Multi,
				Groups: groups, Idle: np - nGroups*p, MByte: o.MByte,
				ScaleBW: spec.ScaleBW, Check: o.Check && spec.Expect != nil,
			}}
			if len(spec.Class.Params) > 0 {
				bp.block.Params = make(map[string]int, len(spec.Class.Params))
				for _, prm := range spec.Class.Params {
					bp.block.Params[prm.Name] = o.Param(prm.Name)
				}
			}
			if spec.Class.Sizeless {
				bp.sizes = []int64{0}
			} else if spec.Reduction {
				bp.sizes = alignSizes(sizes, o.redType().Size(), o.MsgLens != nil)
			} else if unit := o.dataTypeSize(); unit > 1 {
				bp.sizes = alignSizes(sizes, int(unit), o.MsgLens != nil)
			}
			for _, size := range bp.sizes {
				over.note(spec.Name, size, p, bufferBytes(&spec, size, p, o), o.MemBytes)
			}
			plan = append(plan, bp)
		}
	}
	if over.name != "" {
		return nil, optionErrorf("%s at %d bytes on %d processes needs %d bytes of buffers per process, above -mem %s (%d bytes); run with -mem %s or more, or lower -msglog/-msglen",
			over.name, over.size, over.procs, over.need, memValue(o.MemBytes), o.MemBytes, FormatMem(over.most))
	}
	return plan, nil
}

// memOver is what makePlan found of a run's buffers against -mem: the
// first size whose buffers are above it (name empty if none), and the
// largest need of the whole run (bytes per process), which the error
// suggests as -mem so that no later size fails in turn.
type memOver struct {
	name       string
	size       int64
	procs      int
	need, most int64
}

// note records one size's need (bytes per process) against limit.
func (m *memOver) note(name string, size int64, procs int, need, limit int64) {
	m.most = max(m.most, need)
	if need > limit && m.name == "" {
		m.name, m.size, m.procs, m.need = name, size, procs, need
	}
}

// RankOrder returns the world ranks 0..np-1 in the order groups take
// them (result.GroupOrder: rank order, or IMB's order under -map PxQ).
func (o *Options) RankOrder(np int) []int {
	return result.GroupOrder(np, o.Map[0], o.Map[1])
}

// CheckPlan reports, without communicating, whether a run of o on np
// processes can start: the same checks every rank makes at the start of
// Run (options, process counts, and each size's buffers against -mem),
// so a launcher can reject a job before starting its ranks. The error is
// one line naming the option and the value that would work.
func CheckPlan(o Options, np int) error {
	if err := o.Validate(); err != nil {
		return err
	}
	_, err := makePlan(&o, np)
	return err
}

// processCounts returns the process counts (per group) s runs at on np
// processes: 2 for Pair benchmarks (IMB runs single transfers on 2
// processes); for a class of Pairs (Uniband, Biband) the -npmin sweep
// over even counts (IMB rounds np down and npmin up to even numbers,
// IMB_2018.c); else the -npmin sweep.
func (s *Spec) processCounts(npmin, np int) ([]int, error) {
	if (s.Pair || s.Class.Pairs) && np < 2 {
		return nil, optionErrorf("%s needs 2 processes, %d running: run with -np 2 or more", s.Name, np)
	}
	if s.Pair {
		return []int{2}, nil
	}
	if s.Class.Pairs && npmin <= np {
		even := np - np%2
		npmin, np = min(npmin+npmin%2, even), even
	}
	counts, err := ProcessCounts(npmin, np)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return counts, nil
}
