package tune

import "strings"

// The installed libraries' own words: what their tools print and how
// mpbench tune reads it.

// Configs lists the forcible configurations of collective on np ranks as
// ompi_info listed them (o.Algorithms): every algorithm but the two_proc
// ones off 2 ranks (they exist for exactly two), and a segmented one
// (chain, pipeline, segmented ring: OMPISegmented) once more per segment
// size in segments when the collective has a segment size control
// (o.Segmentable). None for a collective ompi_info lists no algorithm of.
func (o OMPI) Configs(collective string, np int, segments []int) []Config {
	var cs []Config
	for _, a := range o.Algorithms[collective] {
		if strings.Contains(a.Algorithm, "two_proc") && np != 2 {
			continue
		}
		cs = append(cs, a)
		if o.Segmentable[collective] && OMPISegmented(a.Algorithm) {
			for _, s := range segments {
				cs = append(cs, Config{Algorithm: a.Algorithm, ID: a.ID, Segment: s})
			}
		}
	}
	return cs
}

// OMPISegmented reports whether an Open MPI algorithm (a name as
// ParseOMPIInfo gives it) is one of the segmented ones whose segment size
// is worth measuring: chain, pipeline, segmented ring; the others run
// unsegmented.
func OMPISegmented(name string) bool {
	for _, s := range []string{"chain", "pipeline", "segmented"} {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// OMPIVersion reads the library's name and version from the output of
// "ompi_info --version", whose first line is e.g. "Open MPI v4.1.4";
// "Open MPI" when it has no such line.
func OMPIVersion(out string) string {
	if l, _, _ := strings.Cut(out, "\n"); strings.HasPrefix(l, "Open MPI") {
		return strings.TrimSpace(l)
	}
	return "Open MPI"
}

// MPICHVersion reads the library's version from the output of MPICH's
// mpichversion, whose first line is e.g. "MPICH Version:      4.0": "MPICH
// 4.0"; "MPICH" when the first line has no version.
func MPICHVersion(out string) string {
	if _, ver, ok := strings.Cut(strings.SplitN(out, "\n", 2)[0], ":"); ok && strings.TrimSpace(ver) != "" {
		return "MPICH " + strings.TrimSpace(ver)
	}
	return "MPICH"
}

// MPICHRejected reports whether MPICH's standard error shows that it read
// a collective-selection JSON file whose rule for collective names
// algorithm, one MPICH does not have: MPICH complains about the key
// ("unrecognized key algorithm=MPIR_Bcast_intra_mpbench_probe") while it
// parses the file at start-up. key is the key looked for,
// "algorithm=" + MPICHContainer(collective, algorithm).
func MPICHRejected(stderr, collective, algorithm string) (key string, seen bool) {
	key = "algorithm=" + MPICHContainer(collective, algorithm)
	return key, strings.Contains(stderr, key)
}
