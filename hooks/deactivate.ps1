# __ENVHOOK_HEADER__
#
# PowerShell (pwsh on Linux), dot-sourced by conda's Conda.psm1. Undoes the
# matching activate.d hook with the same rules as deactivate.sh: untouched
# values come back exactly (an empty one comes back unset: PowerShell cannot
# hold a set-but-empty variable), changes made while active are kept minus
# our directories, and nothing happens if we did not activate. Child scope,
# no external program, safe under Set-StrictMode -Version Latest.

if ([System.Environment]::OSVersion.Platform -ne [System.PlatformID]::Win32NT) {
    & {
        $ours = @((__ENVHOOK_DIRS__).Split(':'))
        # The key, and whose state it is: see activate.ps1.
        $prefix = __ENVHOOK_PREFIX__
        $origin = __ENVHOOK_ORIGIN__
        # A copy made without conda: see activate.ps1.
        $copyPrefix = [System.Environment]::GetEnvironmentVariable('CONDA_PREFIX')
        if ($null -ne $copyPrefix -and $copyPrefix -cne '' -and $copyPrefix -cne $prefix -and
            (__ENVHOOK_COPY_MARKS__)) {
            $prefix = $copyPrefix
            $ours = @(__ENVHOOK_COPY_DIRS__)
        }
        $id = '__ENVHOOK_ID__'
        if ($prefix -cne $origin) { $id = "$($id)_$($prefix.Length)" }
        $state = [System.Environment]::GetEnvironmentVariable("ENVHOOK_STATE_$id")
        $applied = [System.Environment]::GetEnvironmentVariable("ENVHOOK_APPLIED_$id")
        if (-not ("$applied").StartsWith("$prefix/", [System.StringComparison]::Ordinal)) { $state = $null }
        if ($null -ne $state -and $state -cne '') {
            $current = [System.Environment]::GetEnvironmentVariable('LD_LIBRARY_PATH')
            if ($null -ne $current -and $current -ceq $applied) {
                if ($state -ceq 'set') {
                    $saved = [System.Environment]::GetEnvironmentVariable("ENVHOOK_SAVED_$id")
                    [System.Environment]::SetEnvironmentVariable('LD_LIBRARY_PATH', $saved)
                }
                else { [System.Environment]::SetEnvironmentVariable('LD_LIBRARY_PATH', $null) }
            }
            elseif ($null -ne $current) {
                # One pass (see activate.ps1).
                $rest = @($current.Split(':').Where({ $_ -cne '' -and $ours -cnotcontains $_ }))
                if ($rest.Count -gt 0 -or $state -ceq 'set') {
                    [System.Environment]::SetEnvironmentVariable('LD_LIBRARY_PATH', ($rest -join ':'))
                }
                else { [System.Environment]::SetEnvironmentVariable('LD_LIBRARY_PATH', $null) }
            }
            foreach ($name in "ENVHOOK_STATE_$id", "ENVHOOK_SAVED_$id", "ENVHOOK_APPLIED_$id") {
                [System.Environment]::SetEnvironmentVariable($name, $null)
            }
        }
    }
}
# __ENVHOOK_DETAILS__
