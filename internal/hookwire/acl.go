package hookwire

import (
	"fmt"
	"strings"
)

// The Windows side of "private to this user" is an access control list,
// read and written as SDDL text; the two functions here are that text's
// logic, apart from the system calls (owner_windows.go) so that they are
// tested on every platform.

// privateSDDL is the security descriptor mneme gives its data directory,
// the fallback spool and socket directories and the secret file on
// Windows: owned by the user whose SID is sid, with a protected DACL (no
// entry inherited from the parent) holding one entry that grants that user
// full access, inherited by the files and directories made inside. It is
// Unix's 0700 (0600 for a file: the inheritance flags do nothing there).
func privateSDDL(sid string) string {
	return "O:" + sid + "D:P(A;OICI;FA;;;" + sid + ")"
}

// sddlNotPrivate reports why the security descriptor sddl (owner and DACL,
// as ConvertSecurityDescriptorToStringSecurityDescriptor writes them) is
// not private to the user whose SID is sid: it has another owner, no DACL
// (everyone may do anything), or an entry that allows access to someone
// else. Entries for OWNER RIGHTS (OW) and CREATOR OWNER (CO) are the user
// again. It returns "" for a private descriptor.
func sddlNotPrivate(sddl, sid string) string {
	owner, dacl := sddlPart(sddl, 'O'), sddlPart(sddl, 'D')
	if owner != sid {
		return fmt.Sprintf("is owned by %s, not %s", owner, sid)
	}
	if dacl == "" || strings.HasPrefix(dacl, "NO_ACCESS_CONTROL") {
		return "has no access control list, open to everyone"
	}
	var others []string
	for rest := dacl; ; {
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], ')')
		if end < 0 {
			return "has an unreadable access control list"
		}
		ace := strings.Split(rest[open+1:open+end], ";")
		rest = rest[open+end+1:]
		if len(ace) < 6 {
			return "has an unreadable access control list"
		}
		kind, who := ace[0], ace[len(ace)-1]
		if kind != "A" && kind != "OA" && kind != "XA" && kind != "ZA" {
			continue // deny and audit entries take nothing away from privacy
		}
		if who != sid && who != "OW" && who != "CO" {
			others = append(others, who)
		}
	}
	if len(others) > 0 {
		return "grants access to " + strings.Join(others, ", ") + ", open to others"
	}
	return ""
}

// sddlPart is the text of one part of sddl (O, G, D or S) after its tag;
// "" when it is absent. An owner or group is an alias (two letters) or a
// SID (S-1-…); a DACL or SACL is its flags and its parenthesized entries.
func sddlPart(sddl string, tag byte) string {
	for s := sddl; len(s) >= 2 && s[1] == ':'; {
		t := s[0]
		s = s[2:]
		n := 0
		switch {
		case t == 'O' || t == 'G':
			if strings.HasPrefix(s, "S-") {
				for n = 2; n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '-'); n++ {
				}
			} else {
				n = min(2, len(s))
			}
		default:
			for n < len(s) && s[n] != '(' && !(n+1 < len(s) && s[n+1] == ':') {
				n++ // the flags: P, AI, AR, NO_ACCESS_CONTROL
			}
			for n < len(s) && s[n] == '(' {
				end := strings.IndexByte(s[n:], ')')
				if end < 0 {
					n = len(s)
					break
				}
				n += end + 1
			}
		}
		if t == tag {
			return s[:n]
		}
		s = s[n:]
	}
	return ""
}
