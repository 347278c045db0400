package launch

import (
	"bytes"
	"debug/elf"
	"os"
	"sync"
)

// BuildID identifies the executable of this process: the Go build ID from
// its ELF note ".note.go.buildid" (the content hash the go command computes
// from the sources, flags and toolchain), or "" when the executable cannot
// be read. Two binaries with the same BuildID are the same build.
func BuildID() string {
	buildIDOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		buildID = readBuildID(exe)
	})
	return buildID
}

var (
	buildIDOnce sync.Once
	buildID     string
)

// readBuildID reads the Go build ID note of the ELF file at path: namesz,
// descsz and type (4 bytes each, host order), the name "Go\0\0", then the
// ID.
func readBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	descsz := int(f.ByteOrder.Uint32(b[4:8]))
	if !bytes.Equal(b[12:16], []byte("Go\x00\x00")) || 16+descsz > len(b) {
		return ""
	}
	return string(bytes.TrimRight(b[16:16+descsz], "\x00"))
}
