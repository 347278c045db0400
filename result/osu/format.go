package osu

import "github.com/mpbench/mpbench/result"

// OSU output is known by its title line ("# OSU MPI Latency Test v7.1",
// titleRE), which only OSU prints.
func init() {
	result.RegisterFormat(result.Format{
		Name:      "osu",
		Title:     "OSU text output",
		Mark:      titleRE.MatchString,
		Order:     10,
		Parse:     Parse,
		NotFormat: ErrNotOSU,
	})
}
