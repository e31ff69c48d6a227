# run.ps1 PROGRAM [ARGS...]: the PowerShell twin of run.sh, for Windows
# where `sh` is not on PATH (Claude Code starts a plugin's MCP server without
# a shell; its hooks go through Git Bash and use run.sh). Register the MCP
# server with it by hand:
#
#   claude mcp add mneme -- powershell -NoProfile -ExecutionPolicy Bypass -File "<plugin>\scripts\run.ps1" mneme mcp
#
# It does what run.sh does: runs PROGRAM from the plugin's bin\; when bin\
# has none, downloads the release archive of the plugin's version
# (.claude-plugin\plugin.json) for this platform, checks it against the
# SHA-256 recorded in the plugin (.claude-plugin\checksums.txt), unpacks it
# in a temporary directory inside the plugin and renames that into place as
# bin\ under a lock directory; else PROGRAM from PATH; else a hook answers
# Claude Code and exits 0 and the MCP server says why on stderr and exits
# 1. MNEME_DOWNLOAD_URL and MNEME_DOWNLOAD_TIMEOUT as for run.sh.
#
# It is written for Windows PowerShell 5.1 and PowerShell 7; it has not
# been run by mneme's tests (they run run.sh), which have no Windows.
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
$prog = [string]$args[0]
$rest = @($args | Select-Object -Skip 1)
$root = if ($env:CLAUDE_PLUGIN_ROOT) { $env:CLAUDE_PLUGIN_ROOT } else { Split-Path -Parent $PSScriptRoot }
$bindir = Join-Path $root 'bin'

function Find-Installed {
    foreach ($name in @("$prog.exe", $prog)) {
        $p = Join-Path $bindir $name
        if (Test-Path -LiteralPath $p -PathType Leaf) { return $p }
    }
    return $null
}

# Quote one argument for a Windows command line (the C runtime's rules).
function Format-Arg([string]$a) {
    if ($a -ne '' -and $a -notmatch '[\s"]') { return $a }
    $s = $a -replace '(\\*)"', '$1$1\"'
    $s = $s -replace '(\\+)$', '$1$1'
    return '"' + $s + '"'
}

# Run the binary with this process's own stdin, stdout and stderr (no
# PowerShell pipeline in between: the MCP server's stream passes as is).
function Start-Binary([string]$path) {
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = $path
    $psi.Arguments = (@($rest | ForEach-Object { Format-Arg ([string]$_) }) -join ' ')
    $psi.UseShellExecute = $false
    $p = [System.Diagnostics.Process]::Start($psi)
    $p.WaitForExit()
    exit $p.ExitCode
}

$found = Find-Installed
if ($found) { Start-Binary $found }

$hookEvent = if ($prog -eq 'mneme-hook' -and $rest.Count -gt 0) { [string]$rest[0] } else { '' }
$budget = switch -Regex ("${prog}:$hookEvent") {
    '^mneme-hook:session-start$' { 6; break }
    '^mneme-hook:(pre-tool-use|session-end)$' { 1; break }
    '^mneme-hook:' { 3; break }
    default { 20 }
}
if ($env:MNEME_DOWNLOAD_TIMEOUT -match '^[0-9]+$') { $budget = [int]$env:MNEME_DOWNLOAD_TIMEOUT }
$deadline = (Get-Date).AddSeconds($budget)

$version = ''
try { $version = [string](Get-Content -Raw -LiteralPath (Join-Path $root '.claude-plugin\plugin.json') | ConvertFrom-Json).version } catch {}
$os = 'windows'
if ($null -ne $IsWindows -and -not $IsWindows) { $os = if ($IsMacOS) { 'darwin' } else { 'linux' } }
$machine = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } elseif ($env:PROCESSOR_ARCHITECTURE) { $env:PROCESSOR_ARCHITECTURE } else { [string][System.Runtime.InteropServices.RuntimeInformation]::OSArchitecture }
$arch = switch -Regex ($machine) { '^(AMD64|X64|x86_64)$' { 'amd64' } '^(ARM64|Arm64|aarch64)$' { 'arm64' } default { '' } }
$ext = if ($os -eq 'windows') { 'zip' } else { 'tar.gz' }
$archive = "mneme_${version}_${os}_${arch}.$ext"
$release = "https://github.com/mneme-dev/mneme/releases/download/v$version"
$base = if ($env:MNEME_DOWNLOAD_URL) { $env:MNEME_DOWNLOAD_URL } else { $release }
$lock = Join-Path $root '.install-lock'
$marker = Join-Path $root '.install-failed'
$script:why = ''

function Get-Seconds-Left { [math]::Max(0, ($deadline - (Get-Date)).TotalSeconds) }

function Install-Binaries {
    $want = ''
    $sums = Join-Path $root '.claude-plugin\checksums.txt'
    if (Test-Path -LiteralPath $sums) {
        foreach ($line in Get-Content -LiteralPath $sums) {
            if ($line -match '^([0-9a-fA-F]{64})\s+\*?(\S+)$' -and $Matches[2] -eq $archive) { $want = $Matches[1].ToLower(); break }
        }
    }
    if (-not $want) { $script:why = "the plugin records no checksum for $archive"; return $false }
    $tmp = Join-Path $root (".install-tmp." + [guid]::NewGuid().ToString('N').Substring(0, 8))
    try {
        New-Item -ItemType Directory -Path $tmp | Out-Null
        $file = Join-Path $tmp $archive
        $url = "$base/$archive"
        $secs = Get-Seconds-Left
        if ($secs -lt 0.1) { $script:why = "no time was left to download $url"; return $false }
        $curl = Get-Command curl.exe -CommandType Application -ErrorAction SilentlyContinue
        if ($curl) {
            # Windows PowerShell 5.1 turns a native program's stderr into
            # errors, which 'Stop' would throw: curl's exit code says it.
            $ErrorActionPreference = 'Continue'
            $code = & $curl.Source -sS -L -f --max-time ([math]::Ceiling($secs)) -o $file -w '%{http_code}' $url 2>$null
            $ErrorActionPreference = 'Stop'
            if ($LASTEXITCODE -eq 28) { $script:why = "download of $url did not finish within ${budget}s"; return $false }
            if ($LASTEXITCODE -ne 0) { $script:why = "download of $url failed: HTTP $code (curl exit $LASTEXITCODE)"; return $false }
        } else {
            try {
                [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
                Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $file -TimeoutSec ([math]::Ceiling($secs))
            } catch {
                $script:why = "download of $url failed: $($_.Exception.Message)"; return $false
            }
            if ((Get-Date) -gt $deadline) { $script:why = "download of $url did not finish within ${budget}s"; return $false }
        }
        $got = (Get-FileHash -Algorithm SHA256 -LiteralPath $file).Hash.ToLower()
        if ($got -ne $want) { $script:why = "$archive does not match the checksum the plugin records"; return $false }
        $x = Join-Path $tmp 'x'
        $newbin = Join-Path $tmp 'bin'
        New-Item -ItemType Directory -Path $x, $newbin | Out-Null
        try {
            if ($ext -eq 'zip') { Expand-Archive -LiteralPath $file -DestinationPath $x } else { $ErrorActionPreference = 'Continue'; & tar -xzf $file -C $x 2>$null | Out-Null; $ErrorActionPreference = 'Stop'; if ($LASTEXITCODE -ne 0) { throw 'tar' } }
        } catch { $script:why = "$archive could not be unpacked"; return $false }
        foreach ($name in @('mneme', 'mneme-hook')) {
            $hit = Get-ChildItem -LiteralPath $x -Recurse -File -Depth 1 | Where-Object { $_.Name -eq "$name.exe" -or $_.Name -eq $name } | Select-Object -First 1
            if (-not $hit) { $script:why = "$archive holds no $name"; return $false }
            Move-Item -LiteralPath $hit.FullName -Destination $newbin
        }
        if (Test-Path -LiteralPath $bindir) { Move-Item -LiteralPath $bindir -Destination (Join-Path $tmp 'old') }
        [System.IO.Directory]::Move($newbin, $bindir)
        Remove-Item -LiteralPath $marker -ErrorAction SilentlyContinue
        return $true
    } catch {
        if (-not $script:why) { $script:why = "cannot write in ${root}: $($_.Exception.Message)" }
        return $false
    } finally {
        Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
    }
}

if (-not $version) {
    $script:why = "no version in $root\.claude-plugin\plugin.json"
} elseif (-not $arch) {
    $script:why = "no release for this platform ($machine)"
} elseif ($prog -eq 'mneme-hook' -and $hookEvent -ne 'session-start' -and (Test-Path -LiteralPath $marker) -and ((Get-Date) - (Get-Item -LiteralPath $marker).LastWriteTime).TotalMinutes -lt 5) {
    $script:why = [string](Get-Content -LiteralPath $marker -TotalCount 1)
    if (-not $script:why) { $script:why = 'an install failed moments ago' }
} else {
    while (-not (Find-Installed)) {
        if ((Test-Path -LiteralPath $lock) -and ((Get-Date) - (Get-Item -LiteralPath $lock).LastWriteTime).TotalMinutes -gt 2) {
            Remove-Item -LiteralPath $lock -Force -ErrorAction SilentlyContinue
        }
        $locked = $false
        try { New-Item -ItemType Directory -Path $lock -ErrorAction Stop | Out-Null; $locked = $true } catch {}
        if ($locked) {
            try {
                if (-not (Find-Installed) -and -not (Install-Binaries)) {
                    Set-Content -LiteralPath $marker -Value $script:why -ErrorAction SilentlyContinue
                }
            } finally {
                Remove-Item -LiteralPath $lock -Force -ErrorAction SilentlyContinue
            }
            break
        }
        if ((Get-Seconds-Left) -le 0) { $script:why = 'another session was still installing mneme''s binaries'; break }
        Start-Sleep -Milliseconds 200
    }
}

$found = Find-Installed
if ($found) { Start-Binary $found }
$onPath = Get-Command $prog -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if ($onPath) { Start-Binary $onPath.Source }

$msg = "mneme: could not install its binaries ($($script:why)); install by hand: unpack $archive from $release into $bindir, or run: go install github.com/mneme-dev/mneme/cmd/...@latest"
if ($prog -eq 'mneme-hook') {
    try { [Console]::In.ReadToEnd() | Out-Null } catch {}
    if ($hookEvent -eq 'session-start') {
        $out = @{ hookSpecificOutput = @{ hookEventName = 'SessionStart'; additionalContext = $msg } } | ConvertTo-Json -Compress -Depth 3
    } else {
        $out = '{"continue":true,"suppressOutput":true}'
    }
    [Console]::Out.WriteLine($out)
    exit 0
}
[Console]::Error.WriteLine($msg)
exit 1
