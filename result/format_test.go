package result

import (
	"strings"
	"testing"
)

// TestRegisterFormatRefuses: a format without a name, without Parse, with
// both or neither of Signature and Mark, or registered twice panics.
func TestRegisterFormatRefuses(t *testing.T) {
	parse := func([]byte, string) ([]Run, error) { return nil, nil }
	sig := func([]byte) bool { return false }
	mark := func(string) bool { return false }
	RegisterFormat(Format{Name: "once", Title: "once", Signature: sig, Parse: parse})
	for _, c := range []struct {
		f    Format
		want string
	}{
		{Format{Title: "t", Signature: sig, Parse: parse}, "lower-case name"},
		{Format{Name: "Upper", Title: "t", Signature: sig, Parse: parse}, "lower-case name"},
		{Format{Name: "untitled", Signature: sig, Parse: parse}, "without a Title"},
		{Format{Name: "noparse", Title: "t", Signature: sig}, "without Parse"},
		{Format{Name: "both", Title: "t", Signature: sig, Mark: mark, Parse: parse}, "exactly one"},
		{Format{Name: "neither", Title: "t", Parse: parse}, "exactly one"},
		{Format{Name: "once", Title: "t", Mark: mark, Parse: parse}, "twice"},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("RegisterFormat(%q): panic %v, want %q", c.f.Name, r, c.want)
				}
			}()
			RegisterFormat(c.f)
		}()
	}
	if _, ok := LookupFormat("both"); ok {
		t.Error("a refused format was registered")
	}
	if f, ok := LookupFormat("once"); !ok || f.Signature == nil {
		t.Errorf("LookupFormat(once) = %+v, %v", f, ok)
	}
}
