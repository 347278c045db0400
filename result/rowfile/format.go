package rowfile

import (
	"bytes"

	"github.com/mpbench/mpbench/result"
)

// mpbench's row files are known by their first line: CSV's "# format=
// mpbench-csv ..." comment, JSON Lines' meta record (a JSON object naming
// the format JSONLFormat).
func init() {
	result.RegisterFormat(result.Format{
		Name:  "jsonl",
		Title: "mpbench JSON Lines",
		Signature: func(first []byte) bool {
			return bytes.HasPrefix(first, []byte("{")) && bytes.Contains(first, []byte(`"`+JSONLFormat+`"`))
		},
		Parse: func(data []byte, name string) ([]result.Run, error) { return ReadJSONL(bytes.NewReader(data), name) },
	})
	result.RegisterFormat(result.Format{
		Name:      "csv",
		Title:     "mpbench CSV",
		Signature: func(first []byte) bool { return bytes.HasPrefix(first, []byte("# format="+CSVFormat)) },
		Parse:     func(data []byte, name string) ([]result.Run, error) { return ReadCSV(bytes.NewReader(data), name) },
	})
}
