package tune

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Rule is one line of mpbench's rules file: from Ranks ranks and From
// bytes (IMB's #bytes) upward, Collective runs Config (the zero Config
// keeps the built-in decision table).
type Rule struct {
	Collective string
	Ranks      int
	From       int
	Config     Config
}

// Rules are the lines of a rules file, sorted by collective, ranks and
// From. Lookup follows Open MPI's dynamic rules: the rules of the largest
// listed process count not above the call's (the smallest listed when the
// call's is below all), then the rule with the largest From not above the
// call's bytes.
type Rules []Rule

// RulesFromTables makes the rules of tables: one per range, starting at
// the range's first measured size (the first range of a table at 0).
func RulesFromTables(tables []Table) Rules {
	var rs Rules
	for _, t := range tables {
		for i, r := range t.Ranges {
			from := r.From
			if i == 0 {
				from = 0
			}
			rs = append(rs, Rule{Collective: t.Collective, Ranks: t.Ranks, From: from, Config: r.Winner})
		}
	}
	rs.sort()
	return rs
}

func (rs Rules) sort() {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Collective != b.Collective {
			return a.Collective < b.Collective
		}
		if a.Ranks != b.Ranks {
			return a.Ranks < b.Ranks
		}
		return a.From < b.From
	})
}

// Lookup returns the configuration the rules give collective on ranks
// ranks at bytes bytes, and false when no rule names the collective.
func (rs Rules) Lookup(collective string, ranks, bytes int) (Config, bool) {
	smallest, below := -1, -1
	for _, r := range rs {
		if r.Collective != collective {
			continue
		}
		if smallest < 0 || r.Ranks < smallest {
			smallest = r.Ranks
		}
		if r.Ranks <= ranks && r.Ranks > below {
			below = r.Ranks
		}
	}
	if smallest < 0 {
		return Config{}, false
	}
	if below < 0 {
		below = smallest
	}
	best := -1
	for i, r := range rs {
		if r.Collective == collective && r.Ranks == below && r.From <= bytes && (best < 0 || r.From >= rs[best].From) {
			best = i
		}
	}
	if best < 0 {
		return Config{}, true
	}
	return rs[best].Config, true
}

// WriteRules writes rs as mpbench's rules file: the header lines as "# "
// comments, a column header, then one line per rule "collective ranks
// from_bytes algorithm" (algorithm in Config.String syntax).
func WriteRules(w io.Writer, header []string, rs Rules) error {
	bw := bufio.NewWriter(w)
	writeComments(bw, "# ", header)
	fmt.Fprintln(bw, "# Read by: mpbench run --coll-rules FILE. A call uses the rules of the largest listed ranks not")
	fmt.Fprintln(bw, "# above its own, then the line with the largest from_bytes not above its size (IMB's #bytes);")
	fmt.Fprintln(bw, "# \"default\" keeps mpbench's built-in decision table (mpbench run --show-algorithms).")
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "# collective\tranks\tfrom_bytes\talgorithm")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.Collective, r.Ranks, r.From, r.Config)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// ParseRules reads a rules file written by WriteRules (or by hand): blank
// lines and "#" comments are skipped; every other line is "collective
// ranks from_bytes algorithm". Errors name the line and what is wrong; a
// second line for the same collective, ranks and from_bytes is one (it
// would otherwise replace the first silently).
// Collective and algorithm names are not checked here (package coll
// knows them).
func ParseRules(r io.Reader, name string) (Rules, error) {
	var rs Rules
	type key struct {
		collective  string
		ranks, from int
	}
	seen := map[key]int{} // a rule's collective, ranks and from_bytes -> its line
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: expected \"collective ranks from_bytes algorithm\", got %q", name, line, strings.TrimSpace(text))
		}
		ranks, err1 := strconv.Atoi(f[1])
		from, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || ranks < 1 || from < 0 {
			return nil, fmt.Errorf("%s:%d: ranks must be a positive and from_bytes a non-negative whole number, got %q and %q", name, line, f[1], f[2])
		}
		c, err := ParseConfig(f[3])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		k := key{strings.ToLower(f[0]), ranks, from}
		if first, twice := seen[k]; twice {
			return nil, fmt.Errorf("%s:%d: %s at ranks %d from %d bytes is given twice (lines %d and %d); keep one algorithm per collective, ranks and from_bytes", name, line, k.collective, ranks, from, first, line)
		}
		seen[k] = line
		rs = append(rs, Rule{Collective: k.collective, Ranks: ranks, From: from, Config: c})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s: no rules (expected lines \"collective ranks from_bytes algorithm\")", name)
	}
	rs.sort()
	return rs, nil
}

// writeComments writes each header line with the comment prefix.
func writeComments(w io.Writer, prefix string, lines []string) {
	for _, l := range lines {
		for _, part := range strings.Split(l, "\n") {
			fmt.Fprintln(w, strings.TrimRight(prefix+part, " "))
		}
	}
}
