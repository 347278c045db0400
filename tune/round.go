package tune

import "strings"

// Job is one measuring job of a tuning round: the collectives it measures,
// each with the configuration to force (absent from Configs: the runtime's
// default), and a label for progress lines and errors ("default", or
// "bcast=knomial (7),reduce=chain (2)").
type Job struct {
	Label   string
	Colls   []string
	Configs map[string]Config // nil for the default job
}

// Round builds one round of jobs over colls, whose forcible configurations
// (the default excluded) are configs[c]: job k forces the k-th
// configuration of each collective that has one, and the default job,
// which measures every collective, comes first and again halfway, so that
// the default has twice the rounds of any configuration it is compared
// with and drift over a round hits both alike. With no configuration at
// all the round is the default job alone.
func Round(colls []string, configs map[string][]Config) []Job {
	def := Job{Label: "default", Colls: colls}
	most := 0
	for _, c := range colls {
		most = max(most, len(configs[c]))
	}
	jobs := []Job{def}
	for k := 0; k < most; k++ {
		if k == most/2 {
			jobs = append(jobs, def)
		}
		j := Job{Configs: map[string]Config{}}
		var label []string
		for _, c := range colls {
			if k < len(configs[c]) {
				j.Colls = append(j.Colls, c)
				j.Configs[c] = configs[c][k]
				label = append(label, c+"="+configs[c][k].String())
			}
		}
		j.Label = strings.Join(label, ",")
		jobs = append(jobs, j)
	}
	return jobs
}

// Alone splits j into one job per collective, each forcing that
// collective's configuration of j alone (label "C=CONFIG (alone)"): when a
// job of several collectives fails, these find which configuration made
// it fail.
func (j Job) Alone() []Job {
	var jobs []Job
	for _, c := range j.Colls {
		jobs = append(jobs, Job{Label: c + "=" + j.Configs[c].String() + " (alone)", Colls: []string{c},
			Configs: map[string]Config{c: j.Configs[c]}})
	}
	return jobs
}
