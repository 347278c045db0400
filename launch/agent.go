package launch

import (
	"fmt"
	"strings"
)

// Agent is the command that starts a rank on another host: a command
// template whose words are used as they are, except that "{host}" (also
// inside a word) is replaced by the host name. A template without "{host}"
// gets the host name appended as its last word, so "ssh -p 2222" works as
// well as "ip netns exec {host}". The rank's own command (the mpbench
// executable, at the launcher's path, and BootstrapArg) follows the
// template's words; everything else the rank needs, the job secret
// included, is written to its standard input (see BootstrapFromStdin), so
// nothing secret appears on any command line.
type Agent struct {
	// Words is the template, split into words; nil means DefaultAgent.
	Words []string
}

// DefaultAgent is ssh in batch mode (no password or passphrase prompt:
// keys or an agent must be set up), without a terminal, giving up on a host
// that does not answer within 20 s (so that ssh, not the rendezvous's
// timeout, names it), with the user's own ssh configuration (~/.ssh/config)
// otherwise.
var DefaultAgent = Agent{Words: []string{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-T", "{host}"}}

// ParseAgent splits a --launch-agent template into words as a shell would
// for plain words and '...' or "..." quoting (no variables or escapes other
// than \" inside double quotes), e.g. `ip netns exec {host}` or
// `ssh -F 'my config' {host}`.
func ParseAgent(s string) (_ Agent, err error) {
	defer asHostsError(&err)
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return Agent{}, fmt.Errorf("--launch-agent %q: unterminated %c quote", s, quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return Agent{}, fmt.Errorf("--launch-agent %q: empty; want a command such as \"ssh -p 2222\" or \"ip netns exec {host}\"", s)
	}
	return Agent{Words: words}, nil
}

// Command returns the argv that runs argv on host through the agent.
func (a Agent) Command(host string, argv []string) []string {
	words := a.Words
	if len(words) == 0 {
		words = DefaultAgent.Words
	}
	out := make([]string, 0, len(words)+1+len(argv))
	sawHost := false
	for _, w := range words {
		if strings.Contains(w, "{host}") {
			sawHost = true
			w = strings.ReplaceAll(w, "{host}", host)
		}
		out = append(out, w)
	}
	if !sawHost {
		out = append(out, host)
	}
	return append(out, argv...)
}

// String is the template as one line, for messages.
func (a Agent) String() string {
	if len(a.Words) == 0 {
		return DefaultAgent.String()
	}
	return strings.Join(a.Words, " ")
}

// shellSafe reports whether s passes through a remote shell (ssh joins its
// command words with blanks for the login shell) as one word unchanged.
func shellSafe(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("/._-+=:,@%", c):
		default:
			return false
		}
	}
	return s != ""
}
