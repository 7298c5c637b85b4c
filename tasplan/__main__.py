from tasplan.cli.main import main

main()
