package imb

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mpbench/mpbench/result"
	"github.com/mpbench/mpbench/result/internal/textline"
)

// readerBannerRE matches IMB's title line in every spelling seen:
//
//	#    PALLAS MPI Benchmark Suite V2.2, MPI-1 part
//	#    Intel (R) MPI Benchmark Suite V2.3, MPI-1 part
//	#    Intel (R) MPI Benchmarks 4.1, MPI-1 part
//	#    Intel(R) MPI Benchmarks 2019 Update 6, MPI-1 part
//	#    Intel(R) MPI Benchmarks 2021.3, MPI-IO partn   (IMB-IO's missing backslash)
//
// Groups: vendor ("PALLAS", "Intel (R)"), version ("2.3", "2019 Update 6"),
// part ("MPI-1", "MPI-2", "MPI-IO", "MPI-NBC", "MPI-RMA").
var readerBannerRE = regexp.MustCompile(`(?i)^#\s*(PALLAS|Intel\s*\(R\)|Intel)\s+MPI\s+Benchmarks?(?:\s+Suite)?\s+V?(\S.*?)\s*,\s*(\S+)\s+partn?\s*$`)

// readerMpbenchBannerRE matches mpbench's banner title (Writer's Banner):
// "#    mpbench 0.1.0, IMB-MPI1 2021.3 format, MPI-1 part". Groups as
// readerBannerRE's: "mpbench", the IMB version whose format it follows,
// the part; mpbench's own version comes from its "# mpbench version" line.
var readerMpbenchBannerRE = regexp.MustCompile(`^#\s*(mpbench)\s+\S+,\s*IMB-MPI1\s+(\S+)\s+format\s*,\s*(\S+)\s+part\s*$`)

// readerPartTool maps the banner's part to the IMB executable that prints
// it (IMB src_c/IMB_g_info.c, IMB_general_info).
var readerPartTool = map[string]string{
	"MPI-1":   "IMB-MPI1",
	"MPI-2":   "IMB-EXT",
	"MPI-IO":  "IMB-IO",
	"MPI-NBC": "IMB-NBC",
	"NBC":     "IMB-NBC",
	"MPI-RMA": "IMB-RMA",
	"RMA":     "IMB-RMA",
	"MT":      "IMB-MT",
	"P2P":     "IMB-P2P",
}

// VersionMByte returns the number of bytes in the Mbyte of IMB's
// "Mbytes/sec" column for an IMB version as its banner prints it ("4.1",
// "2017 update 2", "2018 Update 1", "2021.3", "V2.3" without the V).
//
// The rule, from IMB's src_c/IMB_output.c: versions up to 2017 (2.x, 3.x,
// 4.x, 2017 and its updates) and Pallas PMB define
// "static double MEGA = 1.0/1048576.0" (1 Mbyte = 2^20 = result.MiB bytes);
// IMB 2018 and later (the first public commit 30b5e37, "Intel(R) MPI
// Benchmarks 2018", and every release since) define
// "static double MEGA = 1.0 / 1e6" (1 Mbyte = 10^6 = result.MB bytes). The
// user guides agree: "bandwidth = X / 1.048576 / T" in the 3.2-era guide,
// "bandwidth = X / T" (X in bytes, T in usec) in the 2021+ guides.
//
// known is false when version has no leading number; mbyte is then
// result.MB (the current definition).
func VersionMByte(version string) (mbyte float64, known bool) {
	v := strings.TrimLeft(strings.TrimSpace(version), "Vv")
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	major, err := strconv.Atoi(v[:n])
	if err != nil {
		return result.MB, false
	}
	if major >= 2018 {
		return result.MB, true
	}
	return result.MiB, true
}

// readerInfoKeys maps IMB header keys ("# Key : value") to Meta.Info keys.
var readerInfoKeys = map[string]string{
	"machine":                           "machine",
	"system":                            "system",
	"release":                           "release",
	"version":                           "kernel_version",
	"mpi version":                       "mpi_version",
	"mpi thread environment":            "mpi_thread_environment",
	"mpi_datatype":                      "datatype",
	"mpi_datatype for reductions":       "red_datatype",
	"mpi_op":                            "op",
	"minimum message length in bytes":   "min_msglen",
	"maximum message length in bytes":   "max_msglen",
	"minimum io portion in bytes":       "min_msglen",
	"maximum io portion in bytes":       "max_msglen",
	"mpbench version":                   "mpbench_version",
	"transport":                         "transport",
	"hosts":                             "hosts",
	"wire-up":                           "wireup",
	"mbyte":                             "mbyte",
	"number of sender threads":          "sender_threads",
	"number of receiver threads":        "receiver_threads",
	"function cpu_exploit obtains an":   "",
	"new default behavior from version": "",
}

// readerKVRE matches a header line "# Key : value" (key of letters, digits,
// blanks, '_' and '-').
var readerKVRE = regexp.MustCompile(`^#\s*([A-Za-z][A-Za-z0-9_ \-]*?)\s*:\s?(.*)$`)

// readerHeaderKV stores a "# Key : value" header line in m and reports
// whether the line had that form. IMB 2.x's missing newline
// ("# Machine    : x86_64# System     : Linux") is split into both fields.
func readerHeaderKV(m *result.Meta, t string) bool {
	sm := readerKVRE.FindStringSubmatch(t)
	if sm == nil {
		return false
	}
	key, val := strings.ToLower(sm[1]), strings.TrimSpace(sm[2])
	if j := strings.Index(val, "# "); j > 0 && readerKVRE.MatchString(val[j:]) {
		readerHeaderKV(m, val[j:])
		val = strings.TrimSpace(val[:j])
	}
	if key == "date" {
		m.Date = val
		return true
	}
	info, ok := readerInfoKeys[key]
	if !ok {
		info = strings.ReplaceAll(key, " ", "_")
	}
	if info == "" || val == "" {
		return true
	}
	if m.Info == nil {
		m.Info = map[string]string{}
	}
	m.Info[info] = val
	return true
}

// readerIsIMBProgram reports whether base is an IMB or PMB executable name
// ("IMB-MPI1", "IMB-EXT", "IMB-MPI1-GPU", "PMB-MPI1").
func readerIsIMBProgram(base string) bool {
	u := strings.ToUpper(base)
	return (strings.HasPrefix(u, "IMB-") || strings.HasPrefix(u, "PMB-")) && len(u) > 4
}

// readerPromptRE matches a shell prompt before a command: "$ ",
// "[user@host dir]$ ", "[root@host dir]# ".
var readerPromptRE = regexp.MustCompile(`^(\[[^\]]*\][$#]|\S*[$#%>])\s+`)

// readerSetCommand records a command line naming an IMB executable: the
// tool name, the options (IMB option names without '-') and the benchmark
// names given as bare words. It reports whether line named one.
func readerSetCommand(m *result.Meta, line string) bool {
	prog, _, args, ok := textline.Command(strings.TrimLeft(line, "# "), readerIsIMBProgram)
	if !ok {
		return false
	}
	m.Command = readerPromptRE.ReplaceAllString(strings.TrimSpace(strings.TrimLeft(line, "#")), "")
	if m.Info["mpbench_version"] == "" {
		m.Tool = strings.ToUpper(prog)
	}
	opts, words := textline.Options(args)
	if len(opts) > 0 {
		m.Options = opts
	} else {
		m.Options = nil
	}
	if len(words) > 0 {
		if m.Info == nil {
			m.Info = map[string]string{}
		}
		m.Info["selected"] = strings.Join(words, ",")
	}
	return true
}

// readerApplyBanner sets tool, version and Mbyte from a banner match.
func readerApplyBanner(m *result.Meta, sm []string) {
	vendor, version, part := sm[1], strings.TrimSpace(sm[2]), strings.ToUpper(sm[3])
	m.Version = version
	tool := readerPartTool[part]
	if tool == "" {
		tool = "IMB-" + strings.TrimPrefix(part, "MPI-")
	}
	if strings.EqualFold(vendor, "PALLAS") {
		m.Tool = "PMB" + strings.TrimPrefix(tool, "IMB")
		m.MByte = result.MiB
		return
	}
	m.Tool = tool
	m.MByte, _ = VersionMByte(version)
}
