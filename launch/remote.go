package launch

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Ranks on other hosts. A rank whose Spec.Hosts entry is not this host is
// started as Agent.Command(host, [Argv[0], BootstrapArg]): the executable
// at the launcher's path on that host, with one argument. Its arguments
// (Argv[1:]), Spec.Env and the bootstrap variables (the job secret among
// them) are written as one JSON line to its standard input, which the
// launcher keeps open for the job's lifetime: the secret never appears on a
// command line, in the agent's environment or on the network (the ranks
// prove they hold it by challenge and response). When the launcher ends or
// stops the rank (SIGTERM, then SIGKILL to the agent's process group), that
// pipe closes, the agent (ssh) ends its session, the remote rank sees end
// of file on its standard input and exits; it also exits when its control
// connection to the rendezvous drops. To stop a job in order (Ctrl-C, a
// failed rank) the launcher first writes a stop line to that pipe
// (stopLine), so that the rank ends its run as a rank on the launcher's
// host does on the same signal, and kills the agent only after the 2 s
// grace period.

// host returns rank r's host, or "" when the job names no hosts.
func (s *Spec) host(r int) string {
	if s.Hosts == nil {
		return ""
	}
	return s.Hosts[r]
}

// remote reports whether rank r is started through the launch agent.
func (s *Spec) remote(r int) bool {
	return s.Hosts != nil && !IsLocalHost(s.Hosts[r])
}

// firstRemote returns the first host reached through the agent, or "".
func (s *Spec) firstRemote() string {
	for r := range s.Hosts {
		if s.remote(r) {
			return s.Hosts[r]
		}
	}
	return ""
}

// validateHosts checks Hosts against NP, and that the executable's path
// passes through a remote shell unchanged.
func (s *Spec) validateHosts() error {
	if s.Hosts == nil {
		return nil
	}
	if len(s.Hosts) != s.NP {
		return fmt.Errorf("launch: %d hosts for %d ranks: want one host per rank", len(s.Hosts), s.NP)
	}
	if s.firstRemote() != "" && !shellSafe(s.Argv[0]) {
		return fmt.Errorf("launch: the executable's path %q has characters a remote shell would change; install mpbench at a plain path (letters, digits, /._-+=:,@%%) on every host", s.Argv[0])
	}
	return nil
}

// rankHosts is the host name of every rank, for the rendezvous table:
// Spec.Hosts, or this host's name for every rank of a local job.
func (s *Spec) rankHosts() []string {
	if s.Hosts != nil {
		return s.Hosts
	}
	name, err := os.Hostname()
	if err != nil {
		name = "localhost"
	}
	hs := make([]string, s.NP)
	for r := range hs {
		hs[r] = name
	}
	return hs
}

// rendezvousBind chooses the address the rendezvous listens on (see
// Spec.If).
func (s *Spec) rendezvousBind() (string, error) {
	if s.If != "" {
		ip, err := InterfaceAddr(s.If)
		if err != nil {
			return "", fmt.Errorf("launch: %w", err)
		}
		return net.JoinHostPort(ip.String(), "0"), nil
	}
	if b := os.Getenv(EnvRendezvousBind); b != "" {
		return b, nil
	}
	if h := s.firstRemote(); h != "" {
		ip, err := routeSource(h)
		if err != nil {
			return "", fmt.Errorf("launch: %w", err)
		}
		return net.JoinHostPort(ip.String(), "0"), nil
	}
	return "127.0.0.1:0", nil
}

// remoteCommand builds the agent command of remote rank r and its
// bootstrap pipe, with the line already written: it returns the command
// (its Stdin the pipe's read end, to be closed by the caller once started)
// and the pipe's write end, which the launcher keeps open while the rank
// runs.
func (s *Spec) remoteCommand(r int, env []string, rendezvous, secret string) (*exec.Cmd, *os.File, error) {
	argv := s.Agent.Command(s.Hosts[r], []string{s.Argv[0], BootstrapArg})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	b := bootstrap{
		Host: s.Hosts[r], Version: s.Version, Build: BuildID(),
		Env:  append(append([]string{}, s.Env...), rankEnv(rendezvous, secret, r, s.NP)...),
		Args: s.Argv[1:],
	}
	line, err := json.Marshal(b)
	if err != nil {
		return nil, nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stdin pipe: %w", err)
	}
	// One line of a few hundred bytes fits the pipe's buffer.
	if _, err := pw.Write(append(line, '\n')); err != nil {
		pr.Close()
		pw.Close()
		return nil, nil, fmt.Errorf("writing the bootstrap line: %w", err)
	}
	cmd.Stdin = pr
	return cmd, pw, nil
}

// stopLine is a line the launcher writes to the bootstrap pipe of a rank
// started through the agent, after the bootstrap line, to stop it: the
// rank raises Signal ("SIGINT" or "SIGTERM") in its own process, as a
// signal from the launcher would reach a rank on the launcher's host.
type stopLine struct {
	Signal string `json:"signal"`
}

// stopWrite bounds writing a stop line to an agent that does not read.
const stopWrite = time.Second

// sendStop writes a stop line asking p to stop with sig; it reports false
// when p has no bootstrap pipe (a rank on this host) or the line cannot be
// written (the agent is gone), and the caller signals p's process group.
func (p *rankProc) sendStop(sig syscall.Signal) bool {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin == nil {
		return false
	}
	line, _ := json.Marshal(stopLine{Signal: signalName(sig)})
	p.stdin.SetWriteDeadline(time.Now().Add(stopWrite))
	_, err := p.stdin.Write(append(line, '\n'))
	return err == nil
}

// closeStdin closes the launcher's end of a remote rank's bootstrap pipe.
func (p *rankProc) closeStdin() {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdin != nil {
		p.stdin.Close()
		p.stdin = nil
	}
}
