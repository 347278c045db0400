package cli

import (
	"os"

	"github.com/mpbench/mpbench/coll"
	"github.com/mpbench/mpbench/tune"
)

// rulesFileWanted is what --coll-rules takes, for its errors.
const rulesFileWanted = "a decision table written by 'mpbench tune -o DIR' (DIR/mpbench.rules)"

// readCollRules reads a --coll-rules file (tune.ParseRules) and checks
// every rule's collective and algorithm against coll's table; problems are
// usage errors naming the file and line or rule.
func readCollRules(path string) (coll.RuleFunc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, cannotRead("--coll-rules", path, err, rulesFileWanted)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usageErrorf("--coll-rules %s: is a directory; expected %s", path, rulesFileWanted)
	}
	rules, err := tune.ParseRules(f, path)
	if err != nil {
		return nil, usageErrorf("--coll-rules %v", err)
	}
	for _, r := range rules {
		if r.Config.IsDefault() {
			if _, err := coll.AlgorithmNames(r.Collective); err != nil {
				return nil, usageErrorf("--coll-rules %s: %s", path, choiceMsg(err, ""))
			}
			continue
		}
		if err := coll.CheckChoice(r.Collective, choiceOf(r.Config)); err != nil {
			return nil, usageErrorf("--coll-rules %s: rule %s %d %d: %s", path, r.Collective, r.Ranks, r.From, choiceMsg(err, ""))
		}
	}
	return func(collective string, ranks, bytes int) (coll.Choice, bool) {
		c, ok := rules.Lookup(collective, ranks, bytes)
		if !ok || c.IsDefault() {
			return coll.Choice{}, false
		}
		return choiceOf(c), true
	}, nil
}

// choiceOf is the coll.Choice of a tuning configuration.
func choiceOf(c tune.Config) coll.Choice {
	return coll.Choice{Algorithm: c.Algorithm, Segment: c.Segment}
}
