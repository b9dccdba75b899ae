# __ENVHOOK_HEADER__
#
# PowerShell (pwsh on Linux), dot-sourced by conda's Conda.psm1. The same
# rules as the POSIX hook (activate.sh): save the previous value once,
# prepend our directories without duplicating them, drop empty elements,
# keep changes made while active. Comparisons are case-sensitive (-c*), as
# paths are. Every variable is assigned before use (Set-StrictMode -Version
# Latest), everything runs in a child scope so nothing leaks into the
# session, and no external program is started. On Windows the DLL search
# path is PATH, which conda itself manages, so this hook does nothing there.
#
# PowerShell cannot hold an environment variable that is set but empty
# (assigning '' removes it), so an empty LD_LIBRARY_PATH comes back unset.

if ([System.Environment]::OSVersion.Platform -ne [System.PlatformID]::Win32NT) {
    & {
        $ours = @((__ENVHOOK_DIRS__).Split(':'))
        # The prefix this hook was written for, spelled so that conda's
        # rewriting of the old prefix in a copy does not change it; a copy
        # (clone, rename, conda-unpack) keys its state by its prefix's
        # length too (see activate.sh).
        $prefix = __ENVHOOK_PREFIX__
        $origin = __ENVHOOK_ORIGIN__
        # A copy made without conda (cp -a, rsync, a restored backup) holds
        # this hook byte for byte; conda runs it with CONDA_PREFIX set to the
        # copy. When CONDA_PREFIX is another path holding this hook and the
        # link directory it was written with, the copy's own directories are
        # used, never the source's (see activate.sh). .NET cannot tell
        # another spelling of the same directory (a symbolic link) from a
        # copy: such a spelling gets the same libraries through that path,
        # and the moved warning.
        $copyPrefix = [System.Environment]::GetEnvironmentVariable('CONDA_PREFIX')
        if ($null -ne $copyPrefix -and $copyPrefix -cne '' -and $copyPrefix -cne $prefix -and
            (__ENVHOOK_COPY_MARKS__)) {
            $prefix = $copyPrefix
            $ours = @(__ENVHOOK_COPY_DIRS__)
        }
        $moved = $prefix -cne $origin
        $id = '__ENVHOOK_ID__'
        if ($moved) { $id = "$($id)_$($prefix.Length)" }
        $current = [System.Environment]::GetEnvironmentVariable('LD_LIBRARY_PATH')
        # .Where() filters in one pass; `$rest += $el` would copy the array
        # at every element (quadratic in the value's length).
        $rest = @()
        if ($null -ne $current) {
            $rest = @($current.Split(':').Where({ $_ -cne '' -and $ours -cnotcontains $_ }))
        }

        $state = [System.Environment]::GetEnvironmentVariable("ENVHOOK_STATE_$id")
        $applied = [System.Environment]::GetEnvironmentVariable("ENVHOOK_APPLIED_$id")
        $saved = [System.Environment]::GetEnvironmentVariable("ENVHOOK_SAVED_$id")
        # State under our key is ours when the value it applied starts with
        # our prefix; else another copy applied it, and it stays as it is.
        $foreign = $null -ne $state -and $state -cne '' -and
            -not ("$applied").StartsWith("$prefix/", [System.StringComparison]::Ordinal)
        if ($foreign) { }
        elseif ($null -ne $state -and $state -cne '') {
            # Active already: keep the saved value unless it was changed meanwhile.
            if ($null -eq $current -or $current -cne $applied) {
                if ($null -ne $current) { $state = 'set'; $saved = $rest -join ':' }
                else { $state = 'unset'; $saved = '' }
            }
        }
        elseif ($null -ne $current) { $state = 'set'; $saved = $current }
        else { $state = 'unset'; $saved = '' }

        if (-not $foreign) {
            $new = (@($ours) + $rest) -join ':'
            [System.Environment]::SetEnvironmentVariable('LD_LIBRARY_PATH', $new)
            [System.Environment]::SetEnvironmentVariable("ENVHOOK_STATE_$id", $state)
            [System.Environment]::SetEnvironmentVariable("ENVHOOK_SAVED_$id", $saved)
            [System.Environment]::SetEnvironmentVariable("ENVHOOK_APPLIED_$id", $new)
        }

        # Staleness: conda, mamba and pixi add a record to conda-meta/ for
        # each package they install or upgrade and remove the record of each
        # they remove, and pip removes the dist-info directories this hook
        # was made from when it upgrades them.
        $quiet = [System.Environment]::GetEnvironmentVariable('ENVHOOK_QUIET')
        if ($null -eq $quiet -or $quiet -ceq '') {
            $stale = $false
            $records = __ENVHOOK_CONDA_META__
            $self = __ENVHOOK_SELF__
            if ([System.IO.Directory]::Exists($records) -and [System.IO.File]::Exists($self) -and
                [System.IO.Directory]::GetLastWriteTimeUtc($records) -gt [System.IO.File]::GetLastWriteTimeUtc($self)) {
                # A record added or replaced since the hook: a *.json newer
                # than it (conda-meta/ also changes for conda-meta/state,
                # which `conda env config vars set` writes).
                $written = [System.IO.File]::GetLastWriteTimeUtc($self)
                foreach ($record in [System.IO.Directory]::EnumerateFiles($records, '*.json')) {
                    if ([System.IO.File]::GetLastWriteTimeUtc($record) -gt $written) {
                        $stale = $true
                        break
                    }
                }
            }
            foreach ($path in (__ENVHOOK_WATCH__).Split(':')) {
                if ($path -cne '' -and -not [System.IO.File]::Exists($path) -and -not [System.IO.Directory]::Exists($path)) {
                    $stale = $true
                }
            }
            $message = __ENVHOOK_STALE_MESSAGE__
            if ($moved) {
                # The same sentence as the other hooks' and `envhook check`'s.
                $lead = __ENVHOOK_MOVED_PREFIX__
                $middle = __ENVHOOK_MOVED_MIDDLE__
                $tail = __ENVHOOK_MOVED_SUFFIX__
                # The prefix quoted for pasting in a POSIX shell, made here:
                # a copy's prefix is known only now.
                $paste = "'" + $prefix.Replace("'", "'\''") + "'"
                [System.Console]::Error.WriteLine($lead + $prefix + $middle + $origin + $tail + $paste)
            }
            elseif ($stale) { [System.Console]::Error.WriteLine($message) }
            $foreignMessage = __ENVHOOK_FOREIGN_MESSAGE__
            if ($foreign) { [System.Console]::Error.WriteLine($foreignMessage) }
        }
    }
}
# __ENVHOOK_DETAILS__
