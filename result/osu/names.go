package osu

import (
	"regexp"
	"strings"
)

// titleRE matches an OSU title line with or without the leading '#'
// (older OMB and some pastes drop it): "# OSU MPI Latency Test v5.3.2",
// "OSU MPI Allgather Latency Test v5.0", "# OSU MPI-CUDA Bandwidth Test",
// "# OSU MPI All-to-Allw Personalized Exchange Latency Test v7.0-lrbison3".
// Groups: the description between "OSU" and "Test", the version.
var titleRE = regexp.MustCompile(`^#?\s*OSU\s+(.+?)\s+Test\b(?:\s+v(\S+))?`)

// apiPrefixRE matches the programming model word that starts a
// description ("MPI", "MPI-CUDA", "OpenSHMEM", "UPC++", "NCCL" ...).
var apiPrefixRE = regexp.MustCompile(`^(?:MPI(?:-[A-Za-z]+)?|OpenSHMEM|UPC\+\+|UPC|NCCL|RCCL)\s+`)

// descNames maps the descriptions OMB prints (c/mpi/*/*.c and
// osu_coll.h's BENCHMARK strings "OSU MPI%s <description> Test") to the
// benchmark executable names, for the point-to-point and one-sided tests.
var descNames = map[string]string{
	"latency":                           "latency",
	"bandwidth":                         "bw",
	"bi-directional bandwidth":          "bibw",
	"multiple bandwidth / message rate": "mbw_mr",
	"multi latency":                     "multi_lat",
	"multi-threaded latency":            "latency_mt",
	"multi-process latency":             "latency_mp",
	"multi-threaded bandwidth":          "bw_mt",
	"mpi_put latency":                   "put_latency",
	"mpi_put bandwidth":                 "put_bw",
	"mpi_put bi-directional bandwidth":  "put_bibw",
	"mpi_get latency":                   "get_latency",
	"mpi_get bandwidth":                 "get_bw",
	"mpi_accumulate latency":            "acc_latency",
	"mpi_get_accumulate latency":        "get_acc_latency",
	"mpi_fetch_and_op latency":          "fop_latency",
	"mpi_compare_and_swap latency":      "cas_latency",
}

// collNames maps collective names in descriptions to executable stems.
var collNames = map[string]string{
	"broadcast":                         "bcast",
	"all-to-all personalized exchange":  "alltoall",
	"all-to-allv personalized exchange": "alltoallv",
	"all-to-allw personalized exchange": "alltoallw",
	"all-to-all":                        "alltoall",
	"all-to-allv":                       "alltoallv",
	"all-to-allw":                       "alltoallw",
}

// benchName returns the OMB executable name ("osu_latency",
// "osu_ialltoall", "osu_allreduce_persistent") for a title description,
// and whether the description was recognised. Unknown descriptions give
// "osu_" and the lower-case description with '_' for blanks.
func benchName(desc string) (name string, known bool) {
	d := strings.ToLower(strings.Join(strings.Fields(apiPrefixRE.ReplaceAllString(desc, "")), " "))
	if n, ok := descNames[d]; ok {
		return "osu_" + n, true
	}
	prefix, suffix := "", ""
	if s, ok := strings.CutPrefix(d, "non-blocking "); ok {
		prefix, d = "i", s
	}
	if s, ok := strings.CutPrefix(d, "persistent "); ok {
		suffix, d = "_persistent", s
	}
	if s, ok := strings.CutSuffix(d, " persistent latency"); ok {
		suffix, d = "_persistent", s+" latency"
	}
	if s, ok := strings.CutSuffix(d, " persistent"); ok {
		suffix, d = "_persistent", s
	}
	if s, ok := strings.CutPrefix(d, "neighborhood "); ok {
		prefix, d = prefix+"neighbor_", s
	}
	d = strings.TrimSuffix(d, " latency")
	if n, ok := descNames[d]; ok {
		return "osu_" + prefix + n + suffix, true
	}
	if n, ok := collNames[d]; ok {
		return "osu_" + prefix + n + suffix, true
	}
	switch d {
	case "allgather", "allgatherv", "allreduce", "alltoall", "barrier", "gather", "gatherv",
		"reduce", "reduce_scatter", "reduce_scatter_block", "scatter", "scatterv":
		return "osu_" + prefix + d + suffix, true
	}
	return "osu_" + strings.NewReplacer(" ", "_", "/", "_").Replace(d), false
}

// pointToPoint lists benchmarks between exactly two processes (one pair).
var pointToPoint = map[string]bool{
	"osu_latency": true, "osu_bw": true, "osu_bibw": true, "osu_latency_mt": true, "osu_latency_mp": true,
	"osu_bw_mt": true, "osu_put_latency": true, "osu_put_bw": true, "osu_put_bibw": true,
	"osu_get_latency": true, "osu_get_bw": true, "osu_acc_latency": true, "osu_get_acc_latency": true,
	"osu_fop_latency": true, "osu_cas_latency": true, "osu_bw_persistent": true, "osu_latency_persistent": true,
	"osu_bibw_persistent": true,
}

// defaultMaxBytes is OMB's default largest message size for a benchmark:
// MAX_MESSAGE_SIZE (1<<22) for point-to-point and multi-pair tests,
// MAX_MSG_SIZE_COLL (1<<20) for collectives (c/util/osu_util.h).
func defaultMaxBytes(bench string) int64 {
	if pointToPoint[bench] || bench == "osu_mbw_mr" || bench == "osu_multi_lat" {
		return 1 << 22
	}
	return 1 << 20
}
