package tune

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ParseMPIVars returns the algorithms of collective that MPICH's
// MPIR_CVAR_<COLL>_INTRA_ALGORITHM accepts, from the output of MPICH's
// mpivars tool, without "auto". mpivars prints the variable's description
// on one line, its "name - description" lines joined without separators
// ("...(can be overridden with ...)binomial    - Force Binomial Treenb
// - Force ..."); the names are padded to one column width, which tells
// where each name starts. An error names the variable when it is missing.
func ParseMPIVars(r io.Reader, collective string) ([]Config, error) {
	cvar := "MPIR_CVAR_" + strings.ToUpper(collective) + "_INTRA_ALGORITHM"
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, cvar) || strings.HasPrefix(strings.TrimPrefix(line, cvar), ":") {
			continue
		}
		_, desc, ok := strings.Cut(line, "JSON_FILE)")
		if !ok {
			continue
		}
		names := paddedNames(desc)
		if len(names) == 0 {
			break
		}
		var cs []Config
		for _, n := range names {
			cs = append(cs, Config{Algorithm: n})
		}
		return cs, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("mpivars lists no %s with its algorithms (is this MPICH 4.x?)", cvar)
}

// entryRE matches "text<spaces>- " in a joined description: the last
// word before the padding holds the end of the previous description and
// the next name.
var entryRE = regexp.MustCompile(`([A-Za-z0-9_.,()-]*[A-Za-z0-9_]) +- `)

// paddedNames splits "name<pad>- descriptionname<pad>- description..."
// where every name and its padding fill the same width (taken from the
// first entry, whose name stands alone).
func paddedNames(desc string) []string {
	ms := entryRE.FindAllStringSubmatchIndex(desc, -1)
	if len(ms) == 0 {
		return nil
	}
	width := ms[0][1] - 2 - ms[0][2] // name plus padding of the first entry
	var names []string
	for i, m := range ms {
		word := desc[m[2]:m[3]]
		pad := m[1] - 2 - m[3]
		n := width - pad
		if i == 0 {
			n = len(word)
		}
		if n <= 0 || n > len(word) {
			return nil
		}
		name := word[len(word)-n:]
		if !regexp.MustCompile(`^[a-z0-9_]+$`).MatchString(name) {
			return nil
		}
		names = append(names, name)
	}
	return names
}

// MPICHContainer is the name MPICH's collective-selection JSON gives an
// algorithm of collective forced through MPIR_CVAR_<COLL>_INTRA_ALGORITHM:
// "MPIR_Bcast_intra_binomial" for bcast's "binomial"; the non-blocking
// wrapper "nb" is "MPIR_Bcast_allcomm_nb" (MPICH 4.x csel_container.c).
func MPICHContainer(collective, algorithm string) string {
	name := "MPIR_" + strings.ToUpper(collective[:1]) + collective[1:]
	if algorithm == "nb" {
		return name + "_allcomm_nb"
	}
	return name + "_intra_" + algorithm
}

// node is one key of a collective-selection JSON tree with its children,
// in file order (MPICH tries the keys of an object in order).
type node struct {
	key  string
	kids []node
}

// parseTree reads a collective-selection JSON object, keeping key order.
func parseTree(data []byte) ([]node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj func() ([]node, error)
	obj = func() ([]node, error) {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return nil, fmt.Errorf("expected an object, got %v", t)
		}
		var ns []node
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			kids, err := obj()
			if err != nil {
				return nil, err
			}
			ns = append(ns, node{key: k.(string), kids: kids})
		}
		_, err = dec.Token() // '}'
		return ns, err
	}
	return obj()
}

// writeTree writes nodes as an indented JSON object.
func writeTree(w *bufio.Writer, ns []node, indent string) {
	if len(ns) == 0 {
		w.WriteString("{}")
		return
	}
	w.WriteString("{\n")
	for i, n := range ns {
		k, _ := json.Marshal(n.key)
		w.WriteString(indent + "  " + string(k) + ": ")
		writeTree(w, n.kids, indent+"  ")
		if i < len(ns)-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString(indent + "}")
}

// find returns the children of the key in ns, and whether it is there.
func find(ns []node, key string) ([]node, bool) {
	for _, n := range ns {
		if n.key == key {
			return n.kids, true
		}
	}
	return nil, false
}

// WriteMPICH writes tables as an MPICH 4.x collective-selection JSON file
// for MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE (parser: MPICH's
// src/mpi/coll/src/csel.c). That file replaces MPICH's whole MPIR-level
// tree, so it starts from defaults, the library's own tree (the JSON
// built into libmpich), and replaces the intra-communicator subtree of each
// tuned collective by "comm_size<=P" keys per measured process count (the
// largest as "comm_size=any") holding "avg_msg_size<=N" keys (Allgather:
// "total_msg_size<=N", its bytes per rank times P) that end each range
// one byte before the next range starts, and "avg_msg_size=any" for the
// last. A range that keeps the default holds the library's own subtree of
// the collective, so the library decides there as before. The header goes
// into a /* */ comment, which MPICH's JSON parser (json-c) skips.
// Winners are algorithm names of MPIR_CVAR_<COLL>_INTRA_ALGORITHM.
func WriteMPICH(w io.Writer, header []string, tables []Table, defaults []byte) error {
	tree, err := parseTree(defaults)
	if err != nil {
		return fmt.Errorf("tune: MPICH's built-in selection JSON: %v", err)
	}
	byColl := map[string][]Table{}
	for _, t := range tables {
		byColl[t.Collective] = append(byColl[t.Collective], t)
	}
	for i, n := range tree {
		c := strings.TrimPrefix(n.key, "collective=")
		ts, ok := byColl[c]
		if !ok || allDefault(ts) {
			continue
		}
		intra, ok := find(n.kids, "comm_type=intra")
		if !ok {
			return fmt.Errorf("tune: MPICH's built-in selection JSON has no comm_type=intra for %s", c)
		}
		var sizes []node
		for j, t := range ts {
			key := "comm_size<=" + strconv.Itoa(t.Ranks)
			if j == len(ts)-1 {
				key = "comm_size=any"
			}
			sizes = append(sizes, node{key: key, kids: mpichRanges(c, t, intra)})
		}
		kids := []node{{key: "comm_type=intra", kids: sizes}}
		if inter, ok := find(n.kids, "comm_type=inter"); ok {
			kids = append(kids, node{key: "comm_type=inter", kids: inter})
		}
		tree[i].kids = kids
		delete(byColl, c)
	}
	for c, ts := range byColl {
		if !allDefault(ts) {
			return fmt.Errorf("tune: MPICH's built-in selection JSON has no collective=%s", c)
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("/*\n")
	writeComments(bw, " * ", header)
	bw.WriteString(" * MPICH 4.x collective selection (MPIR level). Use with:\n")
	bw.WriteString(" *   MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=THIS_FILE mpiexec ...\n")
	bw.WriteString(" * Collectives and sizes not tuned keep MPICH's built-in selection.\n */\n")
	writeTree(bw, tree, "")
	bw.WriteString("\n")
	return bw.Flush()
}

// mpichRanges is the message-size chain of one table.
func mpichRanges(c string, t Table, defaultIntra []node) []node {
	leaf := func(r Range) []node {
		if r.Winner.IsDefault() {
			return defaultIntra
		}
		return []node{{key: "algorithm=" + MPICHContainer(c, r.Winner.Algorithm)}}
	}
	if c == "barrier" || len(t.Ranges) == 1 {
		return leaf(t.Ranges[0])
	}
	measure, scale := "avg_msg_size", 1
	if c == "allgather" {
		measure, scale = "total_msg_size", t.Ranks
	}
	var ns []node
	for i, r := range t.Ranges {
		key := measure + "=any"
		if i < len(t.Ranges)-1 {
			key = fmt.Sprintf("%s<=%d", measure, t.Ranges[i+1].From*scale-1)
		}
		ns = append(ns, node{key: key, kids: leaf(r)})
	}
	return ns
}

// MPICHDefaults finds MPICH's built-in MPIR-level selection JSON in the
// bytes of libmpich (a NUL-terminated string starting
// {"collective=bcast" whose algorithms are all MPIR_ ones, not the
// device's MPIDI_ trees).
func MPICHDefaults(lib []byte) ([]byte, error) {
	start := []byte(`{"collective=`)
	for off := 0; ; {
		i := bytes.Index(lib[off:], start)
		if i < 0 {
			return nil, fmt.Errorf("no built-in collective-selection JSON found in the MPICH library")
		}
		i += off
		j := bytes.IndexByte(lib[i:], 0)
		if j < 0 {
			j = len(lib) - i
		}
		s := lib[i : i+j]
		if bytes.Contains(s, []byte(`"algorithm=MPIR_`)) && !bytes.Contains(s, []byte("MPIDI_")) {
			return s, nil
		}
		off = i + j
	}
}
