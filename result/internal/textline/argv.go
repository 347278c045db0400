package textline

import (
	"path"
	"strconv"
	"strings"
)

// Command finds the benchmark program on a command line (a shell prompt
// line, a launcher line such as "mpirun -np 4 ./IMB-MPI1 pingpong", or the
// calling sequence a benchmark echoes). isProgram is given the base name of
// each word (path and ".exe" removed, both '/' and '\' separators) and
// reports whether it is the benchmark. Command returns that base name, the
// words before it (the launcher's) and the words after it (the benchmark's
// arguments); ok is false when no word matches.
func Command(line string, isProgram func(base string) bool) (program string, before, after []string, ok bool) {
	words := strings.Fields(line)
	for i, w := range words {
		b := strings.Trim(w, `"'`)
		b = b[strings.LastIndexByte(b, '\\')+1:]
		b = path.Base(b)
		if len(b) > 4 && strings.EqualFold(b[len(b)-4:], ".exe") {
			b = b[:len(b)-4]
		}
		if isProgram(b) {
			return b, words[:i], words[i+1:], true
		}
	}
	return "", nil, nil, false
}

// Options turns benchmark arguments into options by name (without the
// leading dashes) and bare words: "-msglog 3:28 -zero_size off pingpong"
// gives {"msglog": "3:28", "zero_size": "off"} and ["pingpong"]. A word
// after an option is its value unless it starts with '-' and is not a
// number ("-off_cache -1" takes "-1"); an option without a value maps to "".
// "-name=value" and "--name=value" are split at '='.
func Options(args []string) (opts map[string]string, words []string) {
	opts = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			words = append(words, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if eq := strings.IndexByte(name, '='); eq > 0 {
			opts[name[:eq]] = name[eq+1:]
			continue
		}
		if i+1 < len(args) && (args[i+1] == "" || args[i+1][0] != '-' || isNumber(args[i+1])) {
			opts[name] = args[i+1]
			i++
			continue
		}
		opts[name] = ""
	}
	return opts, words
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
