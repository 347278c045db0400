package bench

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// oneLineErr fails t unless err's message is one non-empty line.
func oneLineErr(t *testing.T, what string, err error) {
	t.Helper()
	if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") {
		t.Fatalf("%s: error is not one line: %q", what, msg)
	}
}

// FuzzReadMsgLen checks the -msglen file reader on any file: sizes within
// 0..MaxMsgLen, one per size line in file order (written back one per line
// they read the same), errors of one line naming -msglen.
// Run: go test ./bench -run '^$' -fuzz '^FuzzReadMsgLen$' -fuzztime 30s
func FuzzReadMsgLen(f *testing.F) {
	f.Add([]byte("0\n1\n# comment\n\n1024\n4194304\n"))
	f.Add([]byte("  12 \r\n3\n"))
	f.Add([]byte("12k\n"))
	f.Add([]byte("1073741825\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sizes, err := ReadMsgLen(bytes.NewReader(data))
		if err != nil {
			oneLineErr(t, "ReadMsgLen", err)
			if !strings.HasPrefix(err.Error(), "-msglen") {
				t.Fatalf("error does not name -msglen: %v", err)
			}
			return
		}
		if len(sizes) == 0 {
			t.Fatal("no sizes and no error")
		}
		var back bytes.Buffer
		for _, n := range sizes {
			if n < 0 || n > MaxMsgLen {
				t.Fatalf("size %d outside 0..%d", n, MaxMsgLen)
			}
			fmt.Fprintln(&back, n)
		}
		again, err := ReadMsgLen(&back)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(sizes) {
			t.Fatalf("written back %v reads as %v, %v", sizes, again, err)
		}
	})
}

// FuzzSizeOptions checks the parsers of IMB's -msglog, -iter, -off_cache
// and -mem values on any text: values within their documented bounds,
// -msglog's "a:b" reading back the same exponents, errors of one line
// naming the option.
// Run: go test ./bench -run '^$' -fuzz '^FuzzSizeOptions$' -fuzztime 30s
func FuzzSizeOptions(f *testing.F) {
	for _, s := range []string{"0:22", "22", " 3 : 5 ", "-1", "16,64", "0.5", "1e-300", "2", "NaN", "4:3", "1\n2", "1000,40", "10,1,5", "0,40", "1,\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if lo, hi, err := ParseMsgLog(s); err != nil {
			oneLineErr(t, "ParseMsgLog", err)
			if !strings.HasPrefix(err.Error(), "-msglog ") {
				t.Fatalf("error does not name -msglog: %v", err)
			}
		} else {
			if lo < 0 || lo > hi || hi > MaxMsgLog {
				t.Fatalf("-msglog %q gives %d:%d", s, lo, hi)
			}
			if lo2, hi2, err := ParseMsgLog(strconv.Itoa(lo) + ":" + strconv.Itoa(hi)); err != nil || lo2 != lo || hi2 != hi {
				t.Fatalf("-msglog %d:%d reads back as %d:%d, %v", lo, hi, lo2, hi2, err)
			}
		}
		if n, vol, err := ParseIter(s); err != nil {
			oneLineErr(t, "ParseIter", err)
			if !strings.HasPrefix(err.Error(), "-iter ") {
				t.Fatalf("error does not name -iter: %v", err)
			}
		} else if n < 1 || vol < 1<<20 || vol > 1<<40 {
			t.Fatalf("-iter %q gives %d repetitions, %d bytes", s, n, vol)
		}
		if c, line, err := ParseOffCache(s); err != nil {
			oneLineErr(t, "ParseOffCache", err)
			if !strings.HasPrefix(err.Error(), "-off_cache ") {
				t.Fatalf("error does not name -off_cache: %v", err)
			}
		} else if c != -1 && c != 0 && (c < 1 || c > 1<<40) || line < 1 || line > 1<<20 {
			t.Fatalf("-off_cache %q gives %d bytes, %d-byte lines", s, c, line)
		}
		if n, err := ParseMem(s); err != nil {
			oneLineErr(t, "ParseMem", err)
			if !strings.HasPrefix(err.Error(), "-mem ") {
				t.Fatalf("error does not name -mem: %v", err)
			}
		} else {
			if n < 1 || n > 1<<50 {
				t.Fatalf("-mem %q gives %d bytes", s, n)
			}
			if back, err := ParseMem(FormatMem(n)); err != nil || back < n {
				t.Fatalf("-mem %s (from %q, %d bytes) reads back as %d, %v", FormatMem(n), s, n, back, err)
			}
		}
	})
}
