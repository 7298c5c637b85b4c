from tasplan.cli.app import main

main()
