package launch

import (
	"fmt"
	"net"
	"strings"
)

// InterfaceAddr returns this host's address selected by spec, which is an
// interface name ("eth1", like Open MPI's btl_tcp_if_include) or a network
// in CIDR notation ("10.1.0.0/16", "fd00::/64"). Of several addresses it
// prefers one that is not link-local (IPv6 link-local addresses need a zone
// and are not used) and IPv4 over IPv6 on a named interface. Errors name
// the interfaces and addresses there are.
func InterfaceAddr(spec string) (net.IP, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("--if %s: listing interfaces: %w", spec, err)
	}
	_, cidr, cidrErr := net.ParseCIDR(spec)
	var seen []string
	var best net.IP
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip := ipn.IP
			seen = append(seen, ifc.Name+"="+ip.String())
			if ip.IsLinkLocalUnicast() {
				continue
			}
			match := ifc.Name == spec
			if cidrErr == nil {
				match = cidr.Contains(ip)
			}
			if match && (best == nil || (best.To4() == nil && ip.To4() != nil)) {
				best = ip
			}
		}
	}
	if best == nil {
		kind := "interface"
		if cidrErr == nil {
			kind = "address in network"
		}
		return nil, fmt.Errorf("--if %s: no %s %s on this host (it has %s); give an interface name or a CIDR network of this host", spec, kind, spec, strings.Join(seen, ", "))
	}
	return best, nil
}

// routeSource returns the address this host sends from to reach host (the
// kernel's route choice, found by connecting a UDP socket, which sends
// nothing), for the launcher's rendezvous when --if is not given.
func routeSource(host string) (net.IP, error) {
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return nil, fmt.Errorf("host %s: cannot resolve it (%v) to find the address it reaches this launcher on; give --if NAME|CIDR", host, err)
	}
	c, err := net.Dial("udp", net.JoinHostPort(ips[0].String(), "9"))
	if err != nil {
		return nil, fmt.Errorf("host %s (%s): no route from this host (%v); give --if NAME|CIDR", host, ips[0], err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP, nil
}
