package hookwire

// sunPathLen is the size of sun_path in Linux's sockaddr_un.
const sunPathLen = 108
