package coll

import (
	"fmt"
	"strings"
)

// A collective's default decision (collSpec.rule, MPICH's rules) is a list
// of steps tried in order: the first whose condition holds names the
// algorithm, and the last has none. The rule WriteTable prints and the
// choice Select makes are both read from that one list, so the printed
// rule is the rule that runs.

// step is one line of a decision: the algorithm (a name of the
// collective's table) where when holds; when is nil for the last step.
type step struct {
	alg  string
	when *cond
}

// cond is a condition on a call's ranks p and bytes n (as in Select), with
// its text as WriteTable prints it.
type cond struct {
	text  string
	holds func(p, n int) bool
}

// quantity is what a condition compares: the bytes, the ranks, or their
// product, under the name WriteTable prints.
type quantity struct {
	name string
	of   func(p, n int) int
}

var (
	bytesQ = quantity{"bytes", func(_, n int) int { return n }}
	ranksQ = quantity{"ranks", func(p, _ int) int { return p }}
	totalQ = quantity{"ranks*bytes", func(p, n int) int { return p * n }}
)

// compare is the condition "q op k", op one of <, <=, ==, >=; it panics
// on another op, which only a decision rule of this package could give.
func (q quantity) compare(op string, k int) *cond {
	cmp := map[string]func(a, b int) bool{
		"<":  func(a, b int) bool { return a < b },
		"<=": func(a, b int) bool { return a <= b },
		"==": func(a, b int) bool { return a == b },
		">=": func(a, b int) bool { return a >= b },
	}[op]
	if cmp == nil {
		panic("coll: comparison " + op + " in a decision rule") // the rules are this package's literals
	}
	return &cond{fmt.Sprintf("%s %s %d", q.name, op, k), func(p, n int) bool { return cmp(q.of(p, n), k) }}
}

// ranksPow2 holds when the ranks are a power of two.
var ranksPow2 = &cond{"ranks a power of two", func(p, _ int) bool { return isPow2(p) }}

// either holds when a or b does.
func either(a, b *cond) *cond {
	return &cond{a.text + " or " + b.text, func(p, n int) bool { return a.holds(p, n) || b.holds(p, n) }}
}

// both holds when a and b do.
func both(a, b *cond) *cond {
	return &cond{a.text + " and " + b.text, func(p, n int) bool { return a.holds(p, n) && b.holds(p, n) }}
}

// when is the step "alg if c".
func when(c *cond, alg string) step { return step{alg: alg, when: c} }

// otherwise is the last step.
func otherwise(alg string) step { return step{alg: alg} }

// decide returns the algorithm steps choose for p ranks and n bytes: the
// first whose condition holds, else the last's.
func decide(steps []step, p, n int) string {
	for _, s := range steps {
		if s.when == nil || s.when.holds(p, n) {
			return s.alg
		}
	}
	return steps[len(steps)-1].alg
}

// ruleText is steps as WriteTable prints them: "a" for one step, "a if
// C, else b" for two, "a if C; else b if D; else c" for more.
func ruleText(steps []step) string {
	if len(steps) == 1 {
		return steps[0].alg
	}
	sep := ", else "
	if len(steps) > 2 {
		sep = "; else "
	}
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = s.alg
		if s.when != nil {
			parts[i] += " if " + s.when.text
		}
	}
	return strings.Join(parts, sep)
}
